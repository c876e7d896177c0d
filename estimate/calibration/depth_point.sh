#!/usr/bin/env bash
# Synthesizes one design of designs.txt (or depth_designs below) flattened
# with yosys synth_xilinx and writes the netlist as JSON, the input of
# critical_path.py (the register-to-register logic depth).
#   depth_point.sh VTA NAME WORKDIR [k=v ...]
# Writes WORKDIR/NAME.json and WORKDIR/NAME.depth.log; the design is
# base.yaml with the overrides.
set -euo pipefail
vta=${1:?usage: depth_point.sh VTA NAME WORKDIR [k=v ...]}
name=${2:?name}
work=${3:?workdir}
shift 3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$work"
sets=()
for kv in "$@"; do sets+=(--set "$kv"); done
pkg="$work/vta_pkg_${name}_flat.sv"
"$vta" gen sv --config "$here/base.yaml" "${sets[@]}" -o "$pkg"
mapfile -t srcs < <(ls "$root"/sim/rtl/src/*.sv)
yosys -q -l "$work/$name.depth.log" -e "has no driver|implicitly declared" \
  -p "read_verilog -sv -DSYNTHESIS $pkg ${srcs[*]}; synth_xilinx -family xc7 -top vta_core -flatten; write_json $work/$name.json" \
  >/dev/null 2>&1 || { echo "depth_point: yosys failed for $name; see $work/$name.depth.log" >&2; exit 1; }
