#!/usr/bin/env bash
# Synthesizes the RTL core (sim/rtl/src/*.sv with the generated package PKG)
# with yosys synth_xilinx for FAMILY and prints one line of whole-design
# counts: "LUT FF DSP BRAM36 LUTRAM CARRY SECONDS". The log (per-module stat
# blocks) stays in LOG. Warnings about undriven or implicitly declared
# signals are errors. Used by scripts/rtl_synth.sh (the presets) and
# estimate/calibration/synth_point.sh (calibration designs).
#   scripts/yosys_xilinx_stat.sh PKG LOG [FAMILY]
set -euo pipefail
pkg=${1:?usage: yosys_xilinx_stat.sh PKG LOG [FAMILY]}
log=${2:?log}
family=${3:-xc7}
root=$(cd "$(dirname "$0")/.." && pwd)
mapfile -t srcs < <(ls "$root"/sim/rtl/src/*.sv)
t0=$(date +%s)
if ! yosys -q -l "$log" -e "has no driver|implicitly declared" \
     -p "read_verilog -sv -DSYNTHESIS $pkg ${srcs[*]}; synth_xilinx -family $family -top vta_core; stat" \
     >/dev/null 2>&1; then
  echo "yosys failed on $pkg; see $log:" >&2
  grep -iE "error|has no driver|implicitly declared" "$log" | head -5 >&2
  exit 1
fi
t1=$(date +%s)
# The whole-design counts follow the last "design hierarchy" header. The log
# holds two statistics reports (synth_xilinx ends with its own `stat`, then
# ours), each a block per module and then the totals: summing from the first
# header to the end counted the totals twice and every module once more.
last=$(grep -n '=== design hierarchy ===' "$log" | tail -1 | cut -d: -f1)
stat=$(tail -n +"${last:-1}" "$log")
count() { echo "$stat" | awk -v re="$1" '$1 ~ re {s += $2} END {print s + 0}'; }
lut=$(count '^LUT[1-6]$')
ff=$(count '^FD[RSCP]E$')
dsp=$(count '^DSP48E[12]$')
b36=$(count '^RAMB36E[12]$')
b18=$(count '^RAMB18E[12]$')
lutram=$(count '^RAM(32M|64M|32X1D|64X1D|128X1D|256X1S|32X1S|64X1S|32M16|64M8)$')
carry=$(count '^CARRY[48]$')
bram=$(awk -v a="$b36" -v b="$b18" 'BEGIN {printf "%.1f", a + b / 2}')
echo "$lut $ff $dsp $bram $lutram $carry $((t1 - t0))"
