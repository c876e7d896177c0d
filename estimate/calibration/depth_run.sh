#!/usr/bin/env bash
# Synthesizes the designs of depth_designs.txt (or the NAMEs given) one at a
# time, flattened, and appends per design the register-to-register logic
# depth (critical_path.py) to depth.csv. A design already in the CSV is
# skipped; a netlist already in the work folder is reused.
#   estimate/calibration/depth_run.sh BUILD/apps/vta [NAME...]
# VTA_DEPTH_DESIGNS and VTA_DEPTH_CSV name another design list and CSV (the
# element-width set: depth_widths_designs.txt, depth_widths.csv).
# yosys runs under `nice -n 10`; netlists and logs stay in $VTA_DEPTH_WORK
# (default /tmp/vta-depth). Then: critical_path.py --fit (the Fmax model).
set -euo pipefail
vta=$(realpath "${1:?usage: depth_run.sh PATH/TO/vta [NAME...]}")
shift
here=$(cd "$(dirname "$0")" && pwd)
csv=${VTA_DEPTH_CSV:-$here/depth.csv}
designs=${VTA_DEPTH_DESIGNS:-$here/depth_designs.txt}
work=${VTA_DEPTH_WORK:-/tmp/vta-depth}
mkdir -p "$work"
if [ ! -f "$csv" ]; then
  {
    echo "# Register-to-register logic depth of the RTL core per design of estimate/calibration/$(basename "$designs")"
    echo "# yosys: $(yosys -V)"
    echo "# command: read_verilog -sv -DSYNTHESIS <vta gen sv package> sim/rtl/src/*.sv; synth_xilinx -family xc7 -top vta_core -flatten; write_json; estimate/calibration/critical_path.py"
    echo "# delays: critical_path.py's table (approximations of the xc7 -1 speed grade, DS181/DS187); ns"
    echo "# started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "name,overrides,$(python3 "$here/critical_path.py" --header),date"
  } > "$csv"
fi
want=("$@")
grep -v '^#' "$designs" | while read -r name sets; do
  [ -n "$name" ] || continue
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " =~ " $name " ]]; then continue; fi
  if grep -q "^$name," "$csv"; then echo "$name: already in the CSV"; continue; fi
  # shellcheck disable=SC2086
  [ -f "$work/$name.json" ] || nice -n 10 "$here/depth_point.sh" "$vta" "$name" "$work" $sets
  row=$(python3 "$here/critical_path.py" "$work/$name.json")
  echo "$name,\"$sets\",$row,$(date -u +%Y-%m-%dT%H:%M:%SZ)" | tee -a "$csv"
done
