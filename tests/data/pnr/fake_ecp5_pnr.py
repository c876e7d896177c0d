#!/usr/bin/env python3
"""A stand-in for estimate/calibration/ecp5_pnr.py in the sweep's stage-4
tests (tests/test_sweep_pnr.cpp): the same command line and CSV row, made up
in milliseconds instead of an hour of place and route.

    fake_ecp5_pnr.py --check                exit $FAKE_PNR_CHECK (default 0)
    fake_ecp5_pnr.py VTA NAME --config CFG --part P --freq F --seed S
                     --work W --reuse --csv CSV

Fmax is $FAKE_PNR_FMAX (default 40) x 4 / gemm.block_out of the config, so
designs of one sweep differ; $FAKE_PNR_ROUTED=0 makes a design not fit.
Each run appends its command line to W/calls.txt.
"""
import argparse
import csv
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "estimate",
                                "calibration"))
from ecp5_pnr import HEADER, PARTS  # noqa: E402  (the real driver's columns and parts)

if "--check" in sys.argv:
    sys.exit(int(os.environ.get("FAKE_PNR_CHECK", "0")))
ap = argparse.ArgumentParser()
for a in ("vta", "name"):
    ap.add_argument(a)
for o in ("--config", "--part", "--freq", "--seed", "--work", "--csv"):
    ap.add_argument(o, required=True)
ap.add_argument("--reuse", action="store_true")
a = ap.parse_args()
block_out = int(re.search(r"block_out: (\d+)", open(a.config).read()).group(1))
routed = int(os.environ.get("FAKE_PNR_ROUTED", "1"))
fmax = float(os.environ.get("FAKE_PNR_FMAX", "40")) * 4 / block_out if routed else 0.0
with open(os.path.join(a.work, "calls.txt"), "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\n")
row = {k: "0" for k in HEADER.split(",")}
row.update(name=a.name, overrides="", part=PARTS[a.part], package="CABGA381", speed="6", seed=a.seed, freq_mhz=a.freq,
           routed=routed, timing_met=int(fmax >= float(a.freq)), fmax_mhz=f"{fmax:.2f}", sta_ns="25.00",
           sta_mhz="40.00", lut4=9000 + block_out, ff=5000, mult18=4 * block_out, dp16kd=36, shell_ff=100,
           shell_lut4=50, comb_used=9100, comb_avail=83640, synth_s=12, pnr_s=600,
           note="" if routed else "does not fit: no MULT18X18D left", date="2026-11-28T00:00:00Z")
new = not os.path.exists(a.csv)
with open(a.csv, "a", newline="") as f:
    if new:
        f.write("# fake\n" + HEADER + "\n")
    csv.writer(f, lineterminator="\n").writerow([row[k] for k in HEADER.split(",")])
print(",".join(str(row[k]) for k in HEADER.split(",")))
