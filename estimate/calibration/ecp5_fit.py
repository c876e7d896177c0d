#!/usr/bin/env python3
"""Fits the ECP5 family of the estimate to the place-and-route runs in
ecp5.csv (ecp5_pnr.py) and reports the model and the project's own static
timing against them.

    ecp5_fit.py VTA --report   per design: LUT4 / FF / MULT18 / EBR measured
                               against the model, nextpnr's Fmax against the
                               model and against critical_path.py's
    ecp5_fit.py VTA --write    also write estimate/src/ecp5_fit.inc (rebuild
                               vta after)

VTA is a built `vta` program; the xc7 model's LUT/FF/LUT-RAM and the Fmax
model's period of each design come from `vta estimate --family xc7 --json`,
so the ECP5 family is the same model with fitted conversion factors:
    LUT4 (logic) = a x the xc7 model's LUT6 minus its LUT-RAM
                   measured: LUT4 + 2 x CCU2C (a carry cell fills a slice's
                   two LUT4 positions), without the shell's (ecp5_top.sv)
    FF           = b x the xc7 model's FF; measured without the shell's
    Fmax         = floor x kRestNs / period(c) (kRestNs: the floor with MUL,
                   fmax_fit.inc), the floor the median over the
                   runs of nextpnr's Fmax x period(c) / kRestNs; the band is
                   the worst relative error on the fitted runs (at least 10 %)
    routing      measured, not in the model: per design placed and routed on
                 several parts (one netlist: only the utilization u changes,
                 the estimate's max_util, the fullest of LUT4, FF, MULT18X18D
                 and EBR) the least-squares line of nextpnr's Fmax against u;
                 its slope over its intercept is printed (route_slope()).
Runs in HOLDOUT are left out of the fit and reported beside it.
MULT18X18D and DP16KD are structural (one MULT18X18D per int8 MAC, three per
ALU 32 x 32 multiply, two per load engine, read off the netlists by source
file; DP16KD aspect ratios in src/memory_map.cpp) and only checked here.
Rows not placed and routed (routed 0: the design does not fit the part) are
skipped.
"""
import csv
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CSV = os.path.join(HERE, "ecp5.csv")
INC = os.path.join(ROOT, "estimate", "src", "ecp5_fit.inc")
# Runs left out of the fit (design, part); their error is reported: they
# were placed and routed after the fit was written.
HOLDOUT = {("e04", "LFE5U-85F"), ("e03", "LFE5U-45F"), ("e05", "LFE5U-85F"), ("e06", "LFE5U-25F"), ("e06", "LFE5U-45F")}
# Rows dated before this are of the RTL before commit 6c4d464 (the retire
# count's cut): another netlist for the same overrides.
RTL_SINCE = "2026-11-28T11:00:00Z"
MULT_PER_ALU_MUL = 3.0
MULT_PER_DMA_ENGINE = 2.0


def rows():
    with open(CSV) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def estimate(vta, overrides, family="xc7", device=None):
    args = [vta, "estimate", "--json", "--family", family, "--config", os.path.join(HERE, "base.yaml")]
    if device:
        args += ["--device", device]
    for kv in overrides.split():
        args += ["--set", kv]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ecp5_fit: vta estimate failed for '{overrides}': {r.stderr.strip()}")
    return json.loads(r.stdout)


def rest_ns():
    """kRestNs, the floor with the ALU's MUL (estimate/src/fmax_fit.inc): the
    Fmax model's level is the clock at which that floor closes."""
    with open(os.path.join(ROOT, "estimate", "src", "fmax_fit.inc")) as f:
        for line in f:
            if line.startswith("constexpr double kRestNs = "):
                return float(line.split("=")[1].strip().rstrip(";"))
    sys.exit("ecp5_fit: no kRestNs in estimate/src/fmax_fit.inc")


def pct(model, meas):
    return (model - meas) / meas * 100 if meas else 0.0


def held_text(data, fitted, a, b, f_err):
    held = [(d, e) for d, e in zip(data, f_err) if d not in fitted]
    if not held:
        return "none"
    return ", ".join(f"{d['r']['name']} on {d['r']['part']} seed {d['r']['seed']} LUT4 {pct(a * d['xc7_logic'], d['lut4']):+.0f} %, "
                     f"FF {pct(b * d['xc7_ff'], d['ff']):+.0f} %, Fmax {e * 100:+.0f} %" for d, e in held)


def route_slope(data):
    """The relative fall of nextpnr's Fmax per unit of utilization (printed,
    not modelled: see the docstring): per design
    routed on at least two parts (one netlist, every seed), the least-squares
    line Fmax = a - c x u (rows of the same RTL: RTL_SINCE); k = c / a,
    averaged over the designs weighted by
    their runs. Exits when no design was routed on two parts."""
    groups = {}
    for d in data:
        groups.setdefault((d["r"]["overrides"], d["r"]["date"] >= RTL_SINCE), []).append(d)
    num = den = 0.0
    for runs in groups.values():
        if len({d["r"]["part"] for d in runs}) < 2:
            continue
        us, fs = [d["util"] for d in runs], [d["fmax"] for d in runs]
        mu, mf = statistics.mean(us), statistics.mean(fs)
        c = -sum((u - mu) * (f - mf) for u, f in zip(us, fs)) / sum((u - mu) ** 2 for u in us)
        a = mf + c * mu
        print(f"routing: {runs[0]['r']['name']} on {len({d['r']['part'] for d in runs})} parts, {len(runs)} runs: "
              f"Fmax = {a:.2f} x (1 - {c / a:.3f} x u), u {min(us):.2f}..{max(us):.2f}", file=sys.stderr)
        num += c / a * len(runs)
        den += len(runs)
    if den == 0:
        sys.exit("ecp5_fit: no design placed and routed on two parts (the routing slope needs one)")
    return num / den


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("--report", "--write"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    vta = sys.argv[1]
    data = []
    for r in rows():
        if r["routed"] != "1" or float(r["fmax_mhz"]) <= 0:
            continue
        e = estimate(vta, r["overrides"])
        t = e["total"]
        period = max(e["fmax"]["gemm_path_ns"], e["fmax"]["rest_path_ns"])
        data.append({
            "r": r, "xc7_logic": t["lut"] - t["lutram"], "xc7_ff": t["ff"], "period": period,
            "rest": rest_ns(),
            "lut4": int(r["lut4"]) + 2 * int(r["ccu2c"]) - int(r["shell_lut4"]),
            "ff": int(r["ff"]) - int(r["shell_ff"]),
            "fmax": float(r["fmax_mhz"]), "sta": float(r["sta_mhz"]),
            "util": estimate(vta, r["overrides"], "ecp5", r["part"].lower())["columns"]["max_util"] / 100,
        })
    # Runs with another seed measure nextpnr's seed-to-seed noise; held out too.
    fitted = [d for d in data if (d["r"]["name"], d["r"]["part"]) not in HOLDOUT and d["r"]["seed"] == "1"]
    if not fitted:
        sys.exit("ecp5_fit: no placed-and-routed rows to fit in ecp5.csv")
    a = sum(d["lut4"] * d["xc7_logic"] for d in fitted) / sum(d["xc7_logic"] ** 2 for d in fitted)
    b = sum(d["ff"] * d["xc7_ff"] for d in fitted) / sum(d["xc7_ff"] ** 2 for d in fitted)
    k = route_slope(data)
    floor = statistics.median(d["fmax"] * d["period"] / d["rest"] for d in fitted)
    lut_err = max(abs(a * d["xc7_logic"] - d["lut4"]) / d["lut4"] for d in fitted)
    ff_err = max(abs(b * d["xc7_ff"] - d["ff"]) / d["ff"] for d in fitted)
    f_err = [(floor * d["rest"] / d["period"] - d["fmax"]) / d["fmax"] for d in data]
    band = max(0.10, max(abs(e) for d, e in zip(data, f_err) if d in fitted))
    sta_err = [(d["sta"] - d["fmax"]) / d["fmax"] for d in data]
    print("| design | role | overrides | part | LUT4 pnr / model | FF pnr / model | MULT18 syn / model | DP16KD syn / model "
          "| Fmax nextpnr | model | critical_path.py (ecp5 table) | pnr s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for d, fe, se in zip(data, f_err, sta_err):
        r = d["r"]
        m = estimate(vta, r["overrides"], "ecp5") if "--write" not in sys.argv else None
        mult = f"{r['mult18']} / {m['total']['dsp']:g}" if m else r["mult18"]
        ebr = f"{r['dp16kd']} / {m['total']['ebr']:g}" if m else r["dp16kd"]
        role = "fit" if d in fitted else "holdout" if r["seed"] == "1" else f"seed {r['seed']}"
        print(f"| {r['name']} | {role} | {r['overrides'] or '-'} | {r['part']} | {d['lut4']} / {a * d['xc7_logic']:.0f} "
              f"({pct(a * d['xc7_logic'], d['lut4']):+.0f} %) | {d['ff']} / {b * d['xc7_ff']:.0f} "
              f"({pct(b * d['xc7_ff'], d['ff']):+.0f} %) | {mult} | {ebr} | {d['fmax']:.1f} MHz | "
              f"{floor * d['rest'] / d['period']:.1f} ({fe * 100:+.0f} %) | {d['sta']:.1f} ({se * 100:+.0f} %) "
              f"| {r['pnr_s']} |")
    print(f"\nfitted on {len(fitted)} of {len(data)} runs: LUT4 = {a:.3f} x xc7 LUT6 (worst {lut_err * 100:.1f} %), FF = {b:.3f} x xc7 FF (worst "
          f"{ff_err * 100:.1f} %), floor {floor:.1f} MHz (worst {band * 100:.1f} %); routing (measured, "
          f"not modelled): {-k * 10:+.1f} % of Fmax per 10 points of utilization; held out: "
          f"{held_text(data, fitted, a, b, f_err)}; "
          f"critical_path.py against nextpnr: median {statistics.median(sta_err) * 100:+.1f} %, "
          f"worst {max(sta_err, key=abs) * 100:+.1f} % (Fmax)")
    if "--write" in sys.argv:
        lines = [
            "// Generated by estimate/calibration/ecp5_fit.py --write from",
            f"// estimate/calibration/ecp5.csv ({len(fitted)} placed and routed designs fitted, "
            f"{len(data) - len(fitted)} held out). Do not edit.",
            "// LUT4 and FF: factors on the xc7 model's logic LUT6 and FF (least squares through 0);",
            "// MULT18X18D per ALU multiply / per load engine: read off the synth_ecp5 netlists;",
            "// Fmax: the floor clock, median over the runs of nextpnr's Fmax x period(c) / kRestNs,",
            "// the band its worst relative error (at least 10 %).",
            f"constexpr double kEcp5Lut4PerLut = {a:.4f};",
            f"constexpr double kEcp5FfPerFf = {b:.4f};",
            f"constexpr double kEcp5Lut4Error = {lut_err:.4f};",
            f"constexpr double kEcp5MultPerAluMul = {MULT_PER_ALU_MUL:.1f};",
            f"constexpr double kEcp5MultPerDmaEngine = {MULT_PER_DMA_ENGINE:.1f};",
            f"constexpr double kEcp5FloorMhz = {floor:.2f};",
            f"constexpr double kEcp5FmaxBand = {band:.4f};",
        ]
        with open(INC, "w") as f:
            f.write("\n".join(lines) + "\n")
        print("\n".join(lines))


if __name__ == "__main__":
    main()
