#!/usr/bin/env bash
# ctest: yosys synthesizes the RTL core for PRESET without errors, the GEMM
# array maps to at least MIN_DSP DSP48E1 slices and the buffers to block RAM
# (an optimised-away datapath or RAMs turned into flip-flops fail here).
set -euo pipefail
preset=$1 min_dsp=$2 workdir=$3
line=$("$(dirname "$0")/../scripts/rtl_synth.sh" "$preset" "$workdir")
echo "$line"
read -r _ lut ff dsp bram lutram secs <<<"$line"
[ "$dsp" -ge "$min_dsp" ] || { echo "FAIL: $dsp DSP48E1, expected at least $min_dsp"; exit 1; }
awk -v b="$bram" 'BEGIN {exit !(b >= 1)}' || { echo "FAIL: no block RAM inferred"; exit 1; }
echo "PASS: $lut LUT, $ff FF, $dsp DSP, $bram BRAM36, $lutram LUT-RAM in ${secs}s"
