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
line=$("$root/scripts/yosys_xilinx_stat.sh" "$pkg" "$work/${name}.log" "$family") ||
  { echo "synth_point: yosys failed for $name" >&2; exit 1; }
read -r lut ff dsp bram lutram carry secs <<<"$line"
echo "$name,$lut,$ff,$dsp,$bram,$lutram,$carry,$secs"
