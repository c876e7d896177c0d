#!/usr/bin/env bash
# Places and routes the designs of ecp5_designs.txt (or the NAMEs given) one
# at a time on their ECP5 part and appends a row per design and part to
# ecp5.csv (ecp5_pnr.py: yosys synth_ecp5 + nextpnr-ecp5, and the project's
# critical_path.py on the same netlist). A design and part already in the
# CSV is skipped, so a killed run resumes; a design's netlist is reused for
# its other parts.
#   estimate/calibration/ecp5_run.sh BUILD/apps/vta [NAME...]
# Runs the tools under `nice -n 19` (the machine is shared); netlists,
# reports and logs stay in $VTA_PNR_WORK (default /tmp/vta-ecp5). Then:
# ecp5_fit.py VTA --write (the estimate's ecp5 family).
set -euo pipefail
vta=$(realpath "${1:?usage: ecp5_run.sh PATH/TO/vta [NAME...]}")
shift
here=$(cd "$(dirname "$0")" && pwd)
csv="$here/ecp5.csv"
"$here/ecp5_pnr.py" --check >/dev/null || exit $?
want=("$@")
# Every design must be a valid config before an hour of place and route starts.
grep -v '^#' "$here/ecp5_designs.txt" | while read -r name part sets; do
  [ -n "$name" ] || continue
  args=()
  for kv in $sets; do args+=(--set "$kv"); done
  "$vta" config show --config "$here/base.yaml" "${args[@]}" >/dev/null ||
    { echo "ecp5_run.sh: design $name is not a valid config" >&2; exit 2; }
done
grep -v '^#' "$here/ecp5_designs.txt" | while read -r name part sets; do
  [ -n "$name" ] || continue
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " =~ " $name " ]]; then continue; fi
  full=$(python3 -c "import sys; sys.path.insert(0, '$here'); import ecp5_pnr; print(ecp5_pnr.PARTS['$part'])")
  if [ -f "$csv" ] && grep -q "^$name,[^,]*,$full," "$csv"; then echo "$name on $full: already in the CSV"; continue; fi
  # shellcheck disable=SC2086
  nice -n 19 "$here/ecp5_pnr.py" "$vta" "$name" $sets --part "$part" --reuse --csv "$csv"
done
