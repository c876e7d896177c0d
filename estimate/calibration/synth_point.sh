#!/usr/bin/env bash
# Synthesizes the RTL core of one design point with yosys synth_xilinx and
# prints one CSV row of its resources:
#   name,lut,ff,dsp,bram36,lutram,carry,seconds
# The design is CONFIG (a preset name or YAML path) with --set overrides;
# the package comes from `vta gen sv`, so any config the RTL supports works.
# The per-module stat blocks stay in WORKDIR/NAME.log for inspection.
#   synth_point.sh VTA NAME CONFIG WORKDIR [FAMILY] [k=v ...]
set -euo pipefail
vta=${1:?usage: synth_point.sh VTA NAME CONFIG WORKDIR [FAMILY] [k=v ...]}
name=${2:?name}
config=${3:?config}
work=${4:?workdir}
family=${5:-xc7}
shift 5 || shift $#
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
sets=()
for kv in "$@"; do sets+=(--set "$kv"); done
pkg="$work/vta_pkg_${name}.sv"
"$vta" gen sv --config "$config" "${sets[@]}" -o "$pkg"
mapfile -t srcs < <(ls "$root"/sim/rtl/src/*.sv)
log="$work/${name}.log"
t0=$(date +%s)
if ! yosys -q -l "$log" -e "has no driver|implicitly declared" \
     -p "read_verilog -sv -DSYNTHESIS $pkg ${srcs[*]}; synth_xilinx -family $family -top vta_core; stat" \
     >/dev/null 2>&1; then
  echo "synth_point: yosys failed for $name; see $log" >&2
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
echo "$name,$lut,$ff,$dsp,$bram,$lutram,$carry,$((t1 - t0))"
