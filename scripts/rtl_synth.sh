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
mapfile -t srcs < <(ls "$root"/sim/rtl/src/*.sv)
log="$work/yosys_${preset}.log"
t0=$(date +%s)
if ! yosys -q -l "$log" -e "has no driver|implicitly declared" \
     -p "read_verilog -sv -DSYNTHESIS $pkg ${srcs[*]}; synth_xilinx -family xc7 -top vta_core; stat" >/dev/null 2>&1; then
  echo "rtl_synth: yosys failed for $preset; see $log:" >&2
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
dsp=$(count '^DSP48E1$')
b36=$(count '^RAMB36E1$')
b18=$(count '^RAMB18E1$')
lutram=$(count '^RAM(32M|64M|32X1D|64X1D|128X1D|256X1S|32X1S|64X1S)$')
bram=$(awk -v a="$b36" -v b="$b18" 'BEGIN {printf "%.1f", a + b / 2}')
echo "$preset $lut $ff $dsp $bram $lutram $((t1 - t0))"
