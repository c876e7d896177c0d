#!/usr/bin/env bash
# Synthesizes every design of designs.txt (or the NAMEs given) one at a time
# with yosys synth_xilinx (xc7) and appends a row per design to
# calibration.csv: the whole-design counts and the LUT/FF of the DMA engines
# and of the compute datapath (module_groups.py), the data fit.py fits on.
# A design already in the CSV is skipped, so a killed run resumes.
#   estimate/calibration/run.sh BUILD/apps/vta [NAME...]
# Runs yosys under `nice -n 10` (the machine is shared); logs stay in
# $VTA_CAL_WORK (default /tmp/vta-calibration).
set -euo pipefail
vta=$(realpath "${1:?usage: run.sh PATH/TO/vta [NAME...]}")
shift
here=$(cd "$(dirname "$0")" && pwd)
csv="$here/calibration.csv"
work=${VTA_CAL_WORK:-/tmp/vta-calibration}
mkdir -p "$work"
if [ ! -f "$csv" ]; then
  {
    echo "# yosys synth_xilinx of the RTL core (sim/rtl/src) per design of estimate/calibration/designs.txt"
    echo "# yosys: $(yosys -V)"
    echo "# command: read_verilog -sv -DSYNTHESIS <vta gen sv package> sim/rtl/src/*.sv; synth_xilinx -family xc7 -top vta_core; stat"
    echo "# started: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores (shared; seconds are wall time under load)"
    echo "name,role,overrides,lut,ff,dsp,bram36,lutram_cells,carry4,seconds,date,dma_lut,dma_ff,compute_lut,compute_ff"
  } > "$csv"
fi
want=("$@")
# Every design must be a valid config before an hour of synthesis starts.
grep -v '^#' "$here/designs.txt" | while read -r name role sets; do
  [ -n "$name" ] || continue
  args=()
  for kv in $sets; do args+=(--set "$kv"); done
  "$vta" config show --config "$here/base.yaml" "${args[@]}" >/dev/null || { echo "run.sh: design $name is not a valid config" >&2; exit 2; }
done
grep -v '^#' "$here/designs.txt" | while read -r name role sets; do
  [ -n "$name" ] || continue
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " =~ " $name " ]]; then continue; fi
  if grep -q "^$name," "$csv"; then echo "$name: already in the CSV"; continue; fi
  # shellcheck disable=SC2086
  row=$(nice -n 10 "$here/synth_point.sh" "$vta" "$name" "$here/base.yaml" "$work" xc7 $sets)
  groups=$("$here/module_groups.py" "$work/$name.log")
  echo "${row%%,*},$role,\"$sets\",${row#*,},$(date -u +%Y-%m-%dT%H:%M:%SZ),$groups" | tee -a "$csv"
done
