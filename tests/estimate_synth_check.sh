#!/usr/bin/env bash
# ctest (label synth): yosys synthesizes one small calibration design (c01 of
# estimate/calibration/designs.txt: 1x4x4, about a minute) and the resource
# model must agree with it: DSP48E1 within 10 % (so a DSP-per-MAC regression
# like a miscounted DSP table fails here), BRAM36 within 15 %, LUT
# and FF within 25 %.
#   estimate_synth_check.sh VTA WORKDIR
set -euo pipefail
vta=$1 work=$2
root=$(cd "$(dirname "$0")/.." && pwd)
cal="$root/estimate/calibration"
line=$(grep '^c01 ' "$cal/designs.txt")
read -r name _ sets <<<"$line"
# shellcheck disable=SC2086
row=$("$cal/synth_point.sh" "$vta" "$name" "$cal/base.yaml" "$work" xc7 $sets)
echo "yosys: $row"
args=()
for kv in $sets; do args+=(--set "$kv"); done
"$vta" estimate --json --family xc7 --config "$cal/base.yaml" "${args[@]}" >"$work/estimate_$name.json"
python3 - "$row" "$work/estimate_$name.json" <<'PY'
import json, sys
name, lut, ff, dsp, bram, lutram, carry, secs = sys.argv[1].split(",")
t = json.load(open(sys.argv[2]))["total"]
checks = [("DSP", float(dsp), t["dsp"], 0.10), ("BRAM36", float(bram), t["bram36"], 0.15),
          ("LUT", float(lut), t["lut"] - t["lutram"], 0.25), ("FF", float(ff), t["ff"], 0.25)]
bad = 0
for what, syn, model, tol in checks:
    err = (model - syn) / syn
    ok = abs(err) <= tol
    bad += not ok
    print(f"{'PASS' if ok else 'FAIL'}: {what} synthesized {syn:g}, model {model:.0f} ({err * 100:+.1f} %, limit {tol * 100:.0f} %)")
sys.exit(1 if bad else 0)
PY
