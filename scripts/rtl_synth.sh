#!/usr/bin/env bash
# Synthesizes the RTL core for one preset with yosys (synth_xilinx, 7-series)
# and prints one line of resources: "PRESET LUT FF DSP BRAM36 LUTRAM SECONDS".
# Warnings about undriven or implicitly declared signals are errors.
#   scripts/rtl_synth.sh vta-1x16x16 [workdir]
set -euo pipefail
preset=${1:?usage: rtl_synth.sh PRESET [WORKDIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${2:-$(mktemp -d)}
mkdir -p "$work"
pkg="$root/sim/rtl/generated/vta_pkg_${preset}.sv"
[ -f "$pkg" ] || { echo "rtl_synth: no generated package for '$preset' ($pkg)" >&2; exit 2; }
line=$("$root/scripts/yosys_xilinx_stat.sh" "$pkg" "$work/yosys_${preset}.log" xc7) ||
  { echo "rtl_synth: yosys failed for $preset" >&2; exit 1; }
read -r lut ff dsp bram lutram _carry secs <<<"$line"
echo "$preset $lut $ff $dsp $bram $lutram $secs"
