#!/usr/bin/env python3
"""The longest register-to-register path of a flattened yosys synth_xilinx
(xc7) netlist, in nanoseconds, from a per-cell delay table.

    critical_path.py NETLIST.json [--path] [--family ecp5]
                                                one CSV row (see HEADER); --path
                                                also prints the path, cell by cell;
                                                --family ecp5: a synth_ecp5 netlist
                                                (ECP5_DELAY below)
    critical_path.py --fit [depth.csv] [--write]  the Fmax model's constants from the
                                                rows (estimate/src/fmax_fit.inc), with
                                                the held-out designs' error

Why not yosys: `ltp -noff` counts cells and walks through the Xilinx
flip-flop cells (FDRE is not a yosys $dff), and `sta` needs timing
annotations the xilinx cell library does not carry. This is static timing
analysis over the netlist graph, with these rules:

  start points  FD*E Q (clock-to-out), block RAM DO (RAMB18E1/RAMB36E1,
                clock-to-out with or without the output register),
                LUT-RAM and SRL outputs (clock-to-out of the write), a
                DSP48E1's internal registers (AREG/BREG, MREG, PREG), top-level
                input ports (arrival 0)
  end points    FD*E D/CE/R/S, block RAM address/data/enable inputs, LUT-RAM
                and SRL write inputs, DSP48E1 inputs into an enabled
                register, top-level output ports (setup 0)
  combinational LUT1-6, MUXF7/8, CARRY4, INV, LUT-RAM/SRL read address to
                data, and DSP48E1 internal paths between its registers:
                A/B -> multiplier -> post-adder -> P, C/PCIN -> post-adder;
                a DSP48E1 with no pipeline register enabled is one long
                combinational element (A/B to P about 4.3 ns)
  net delay     NET_NS per connection through general routing; 0 on the
                dedicated ones (DSP cascade PCIN/ACIN/BCIN, CARRY4 CI, MUXF7/8
                inputs). Fan-out and placement are ignored.

Delays (DELAY below) are approximations of the Xilinx 7-series -1 speed grade
switching characteristics (DS181 Artix-7 / DS187 Zynq-7000, whose
programmable logic is Artix-7 fabric in the xc7z020): LUT T_ILO about
0.1 ns, CARRY4 about 0.1 ns per carry-in hop and 0.4-0.5 ns from S/DI, block
RAM clock-to-out about 2.2 ns without its output register, DSP48E1 A/B to P
about 4.3 ns with no register, PCIN to P about 1.5 ns, and a net hop of
0.3-0.5 ns (routing is not in the data sheet; it is the typical order of a
placed design's net delays). They are not a substitute for a vendor's
timing report: what this measures with confidence is the *structure* (which
path is longest, how it grows with the config), which the Fmax model uses
relative to a published clock (estimate/README.md, Fmax).
"""
import json
import sys
from collections import defaultdict, deque

NET_NS = 0.40
DELAY = {
    "lut": 0.12,           # LUT1-6 input to output (T_ILO)
    "muxf7": 0.28,         # MUXF7 I0/I1/S to O
    "muxf8": 0.28,
    "carry_in": 0.12,      # CARRY4 CI to CO/O
    "carry_s": 0.45,       # CARRY4 S/DI/CYINIT to CO/O
    "inv": 0.12,
    "ff_cko": 0.46,        # FD*E clock to Q
    "ff_setup": 0.10,
    "bram_cko": 2.20,      # RAMB clock to DO, no output register (T_RCKO_DO)
    "bram_cko_reg": 0.90,  # with DOA_REG/DOB_REG
    "bram_setup": 0.50,
    "lutram_cko": 1.10,    # write clock to DO of a LUT-RAM / SRL
    "lutram_read": 0.30,   # read address to DO
    "lutram_setup": 0.50,
    "dsp_ab_m": 2.80,      # A/B (or A/B register) through the 25x18 multiplier
    "dsp_m_p": 1.50,       # multiplier (or M register) through the post-adder to P
    "dsp_c_p": 1.50,       # C or PCIN through the post-adder to P
    "dsp_ab_p_nomult": 1.50,  # A:B to P when the multiplier is not used
    "dsp_pcout": 0.20,     # P to PCOUT (extra)
    "dsp_reg_cko": 0.35,   # clock to out of an internal A/B/C/M register
    "dsp_p_cko": 0.60,     # clock to P of PREG
    "dsp_setup": 0.30,
}
# gemm_*: the GEMM write-back path (from the INP/WGT block RAM outputs);
# lut_levels .. path_cells count its cells; rest_*: the longest other path.
DEPTH_CSV = __file__.rsplit("/", 1)[0] + "/depth.csv"
HEADER = "critical_ns,fmax_mhz,gemm_ns,rest_ns,lut_levels,carry4,dsp,muxf,path_cells,rest_start,rest_end"


def param(cell, name, default=0):
    v = cell.get("parameters", {}).get(name)
    if v is None:
        return default
    try:
        return int(v, 2)
    except (TypeError, ValueError):
        return v


class Graph:
    def __init__(self):
        self.arcs = defaultdict(list)  # node -> [(node, delay, cell)]
        self.start = {}                 # node -> arrival (ns)
        self.end = []                   # (node, setup, description)
        self.kind = {}                  # node -> cell type driving it (for the path)

    def arc(self, a, b, d, cell):
        if isinstance(a, str) and a in ("0", "1", "x", "z"):
            return
        self.arcs[a].append((b, d, cell))

    def begin(self, node, t, cell):
        self.start[node] = max(self.start.get(node, 0.0), t)
        self.kind.setdefault(node, cell)

    def finish(self, node, setup, what):
        if isinstance(node, str) and node in ("0", "1", "x", "z"):
            return
        self.end.append((node, setup, what))


DEDICATED = {("DSP48E1", "PCIN"), ("DSP48E1", "ACIN"), ("DSP48E1", "BCIN"), ("DSP48E1", "CARRYCASCIN"),
             ("DSP48E1", "MULTSIGNIN"), ("CARRY4", "CI"), ("MUXF7", "I0"), ("MUXF7", "I1"), ("MUXF8", "I0"),
             ("MUXF8", "I1")}
PASS = {"IBUF", "OBUF", "BUFG", "BUFGCTRL", "IBUFG"}
LUTRAM = ("RAM32M", "RAM64M", "RAM32X1D", "RAM64X1D", "RAM128X1D", "RAM256X1S", "RAM32X1S", "RAM64X1S",
          "RAM128X1S", "RAM32M16", "RAM64M8")


def where(name, c):
    """TYPE@file:line of a cell: its innermost RTL source (the yosys src
    attribute; flattening appends the instantiation's line, so a cell of the
    MAC array, vta_gemm_array.sv, is named by that file's entry)."""
    src = [x for x in str(c.get("attributes", {}).get("src", "")).split("|")
           if "sim/rtl/src/" in x or x.startswith("src/vta_")]
    src = [x for x in src if "/vta_gemm_array.sv:" in x] or src
    loc = src[-1].split("/")[-1].split(":")[0] + ":" + src[-1].split(":")[1].split(".")[0] if src else name
    return f"{c['type']}@{loc}"


def net(t, pin):
    return 0.0 if (t, pin) in DEDICATED else NET_NS


# ECP5 (synth_ecp5 cells), speed grade -6. The cell delays are nextpnr-ecp5's
# own timing database (prjtrellis, -6 grade), as nextpnr's
# --detailed-timing-report gives them on these netlists (the critical path of
# e01, estimate/README.md "ECP5"): LUT4 input to F 0.236 ns, LUT output
# through the slice's PFUMX 0.165, CCU2C A to FCO 0.447, FCI to FCO 0.071,
# FCI to F 0.403-0.443, TRELLIS_FF clock to Q 0.525 (setup 0), DP16KD clock
# to DO without its output register 5.83, MULT18X18D B to P (no register)
# 3.927. Not on a reported path, so guessed at the same order: the
# distributed RAM's (TRELLIS_DPR16X4) and DP16KD setup. The net delay is
# nextpnr's own pre-routing estimate (ecp5/arch.cc estimateDelay:
# (120 - 22 x grade index) ps x (6 + 2 x (dx + dy)) within 5 tiles) for a
# neighbouring tile, dx + dy = 1, at -6: 0.96 ns (chosen after e01's
# report, whose routed hops averaged 0.88 ns; not fitted). Same rules as xc7 above: fan-out and placement
# ignored, the carry (CCU2C CIN) and the slice's wide-mux inputs (PFUMX ALUT /
# BLUT, L6MUX21 D0 / D1) cost no net.
ECP5_NET_NS = 0.96
ECP5_DELAY = {
    "lut": 0.236,          # LUT4 A-D to Z (slice F)
    "pfumx": 0.165,        # PFUMX / L6MUX21 input to Z (slice OFX)
    "ccu2_in": 0.447,      # CCU2C A/B/C/D to S or COUT
    "ccu2_carry": 0.071,   # CCU2C CIN to COUT
    "ccu2_cin_s": 0.443,   # CCU2C CIN to S
    "ff_cko": 0.525,       # TRELLIS_FF clock to Q
    "ff_setup": 0.0,
    "bram_cko": 5.83,      # DP16KD clock to DO, no output register
    "bram_cko_reg": 1.00,  # with the output register (guess: not used by this RTL)
    "bram_setup": 0.20,    # guess
    "lutram_cko": 1.00,    # TRELLIS_DPR16X4 write clock to DO (guess)
    "lutram_read": 0.40,   # read address to DO (guess: a LUT plus the slice mux)
    "lutram_setup": 0.20,  # guess
    "mult": 3.927,         # MULT18X18D A/B to P, no register
    "mult_reg_cko": 0.525,  # clock to out of an input/pipeline/output register (as a FF)
    "mult_setup": 0.20,    # guess
}
ECP5_DEDICATED = {("CCU2C", "CIN"), ("PFUMX", "ALUT"), ("PFUMX", "BLUT"), ("L6MUX21", "D0"),
                  ("L6MUX21", "D1")}
FAMILY = {"name": "xc7"}


def cell_pins(c):
    """A netlist cell's input pins, output pins (name -> bits) and its output bits."""
    ins = {k: v for k, v in c["connections"].items() if c["port_directions"].get(k) == "input"}
    outs = {k: v for k, v in c["connections"].items() if c["port_directions"].get(k) == "output"}
    return ins, outs, [b for v in outs.values() for b in v]


def boundary(g, ins, ob, here):
    """A cell the delay table does not know: its outputs start paths and its
    inputs end them (counted in `unknown`, so a run says what it cut)."""
    for o in ob:
        g.begin(o, 0.0, here)
    for bits in ins.values():
        for a in bits:
            g.finish(a, 0.0, here)


def build_ecp5(module):
    """The same graph as build() over synth_ecp5's cells; top-level ports are
    neither start nor end points (nextpnr's Fmax is register to register)."""
    g = Graph()
    unknown = defaultdict(int)
    d, net_ns = ECP5_DELAY, ECP5_NET_NS

    def net(t, pin):
        return 0.0 if (t, pin) in ECP5_DEDICATED else net_ns
    for name, c in module["cells"].items():
        t = c["type"]
        ins, outs, ob = cell_pins(c)
        here = where(name.removeprefix("core."), c)
        if t in ("LUT4", "PFUMX", "L6MUX21", "INV"):
            dl = d["pfumx"] if t in ("PFUMX", "L6MUX21") else d["lut"]
            for pin, bits in ins.items():
                for a in bits:
                    for o in ob:
                        g.arc(a, o, net(t, pin) + dl, t)
        elif t == "CCU2C":
            for pin, bits in ins.items():
                for a in bits:
                    for opin, obits in outs.items():
                        dl = (d["ccu2_carry"] if opin == "COUT" else d["ccu2_cin_s"]) if pin == "CIN" else d["ccu2_in"]
                        for o in obits:
                            g.arc(a, o, net(t, pin) + dl, t)
        elif t == "TRELLIS_FF":
            for o in ob:
                g.begin(o, d["ff_cko"], here)
            for pin, bits in ins.items():
                if pin != "CLK":
                    for a in bits:
                        g.finish(a, net_ns + d["ff_setup"], here)
        elif t == "DP16KD":
            reg = str(c.get("parameters", {}).get("REGMODE_A", "NOREG")) != "NOREG" or \
                str(c.get("parameters", {}).get("REGMODE_B", "NOREG")) != "NOREG"
            for o in ob:
                g.begin(o, d["bram_cko_reg" if reg else "bram_cko"], here)
            for pin, bits in ins.items():
                if not pin.startswith("CLK"):
                    for a in bits:
                        g.finish(a, net_ns + d["bram_setup"], here)
        elif t == "TRELLIS_DPR16X4":
            for o in ob:
                g.begin(o, d["lutram_cko"], here)
            for pin, bits in ins.items():
                if pin == "WCK":
                    continue
                for a in bits:
                    g.finish(a, net_ns + d["lutram_setup"], here)
                    if pin.startswith("RAD"):
                        for o in ob:
                            g.arc(a, o, net_ns + d["lutram_read"], t)
        elif t == "MULT18X18D":
            p = c.get("parameters", {})
            reg_in = str(p.get("REG_INPUTA_CLK", "NONE")) != "NONE" or str(p.get("REG_INPUTB_CLK", "NONE")) != "NONE"
            reg_pipe = str(p.get("REG_PIPELINE_CLK", "NONE")) != "NONE"
            reg_out = str(p.get("REG_OUTPUT_CLK", "NONE")) != "NONE"
            ab, m = (name, "AB"), (name, "M")
            for pin, bits in ins.items():
                if pin.startswith("CLK"):
                    continue
                for a in bits:
                    if pin[0] in "AB" and pin[1:].isdigit():
                        if reg_in:
                            g.finish(a, net_ns + d["mult_setup"], here)
                        else:
                            g.arc(a, ab, net_ns, t)
                    else:
                        g.finish(a, net_ns + d["mult_setup"], here)
            if reg_in:
                g.begin(ab, d["mult_reg_cko"], here)
            if reg_pipe or reg_out:
                g.finish(ab, d["mult"] + d["mult_setup"], here)
                g.begin(m, d["mult_reg_cko"], here)
            else:
                g.arc(ab, m, d["mult"], t)
            for o in ob:
                g.arc(m, o, 0.0, t)
        elif t in ("GND", "VCC", "VHI", "VLO", "$scopeinfo"):
            pass
        else:
            unknown[t] += 1
            boundary(g, ins, ob, here)
    return g, unknown


def build(module):
    if FAMILY["name"] == "ecp5":
        return build_ecp5(module)
    g = Graph()
    unknown = defaultdict(int)
    for port, p in module["ports"].items():
        for b in p["bits"]:
            if p["direction"] == "input":
                g.begin(b, 0.0, f"port {port}")
            else:
                g.finish(b, 0.0, f"port {port}")
    for name, c in module["cells"].items():
        t = c["type"]
        ins, outs, ob = cell_pins(c)
        label = t
        here = where(name, c)
        if t.startswith("LUT") or t in ("INV", "MUXF7", "MUXF8") or t in PASS:
            d = 0.0 if t in PASS else DELAY["lut"] if t.startswith("LUT") else DELAY["inv"] if t == "INV" else DELAY[t.lower()]
            for pin, bits in ins.items():
                for a in bits:
                    for o in ob:
                        g.arc(a, o, (0.0 if t in PASS else net(t, pin)) + d, label)
        elif t == "CARRY4":
            for pin, bits in ins.items():
                d = DELAY["carry_in"] if pin == "CI" else DELAY["carry_s"]
                for a in bits:
                    for o in ob:
                        g.arc(a, o, net(t, pin) + d, label)
        elif t.startswith("FD"):
            for o in ob:
                g.begin(o, DELAY["ff_cko"], here)
            for pin, bits in ins.items():
                if pin != "C":
                    for a in bits:
                        g.finish(a, NET_NS + DELAY["ff_setup"], here)
        elif t in ("RAMB18E1", "RAMB36E1"):
            reg = param(c, "DOA_REG") or param(c, "DOB_REG")
            for o in ob:
                g.begin(o, DELAY["bram_cko_reg" if reg else "bram_cko"], here)
            for pin, bits in ins.items():
                if not pin.startswith("CLK"):
                    for a in bits:
                        g.finish(a, NET_NS + DELAY["bram_setup"], here)
        elif t in LUTRAM or t.startswith("SRL"):
            for o in ob:
                g.begin(o, DELAY["lutram_cko"], here)
            for pin, bits in ins.items():
                if pin.startswith("WCLK") or pin in ("CLK", "WCLK"):
                    continue
                read = pin.startswith("ADDR") and t in LUTRAM or pin.startswith("A") and t.startswith("SRL")
                read = read or pin in ("A", "DPRA")  # single-bit RAMs: A (shared) and DPRA (read) addresses
                for a in bits:
                    g.finish(a, NET_NS + DELAY["lutram_setup"], here)
                    if read:
                        for o in ob:
                            g.arc(a, o, NET_NS + DELAY["lutram_read"], label)
        elif t == "DSP48E1":
            dsp(g, name, c, ins, outs, here)
        elif t in ("GND", "VCC"):
            pass
        else:
            unknown[t] += 1
            boundary(g, ins, ob, here)
    return g, unknown


def dsp(g, name, c, ins, outs, here):
    """A DSP48E1 as internal nodes: AB (after the A/B registers), M (after the
    multiplier register), P (after the post-adder register)."""
    t = "DSP48E1"
    ab, m, p = (name, "AB"), (name, "M"), (name, "P")
    areg = param(c, "AREG") or param(c, "BREG")
    mreg, preg, creg = param(c, "MREG"), param(c, "PREG"), param(c, "CREG")
    mult = param(c, "USE_MULT", "MULTIPLY") != "NONE"
    # Inputs into A/B (or their registers).
    for pin in ("A", "B", "ACIN", "BCIN", "D"):
        for a in ins.get(pin, []):
            if areg:
                g.finish(a, net(t, pin) + DELAY["dsp_setup"], here)
            else:
                g.arc(a, ab, net(t, pin), t)
    if areg:
        g.begin(ab, DELAY["dsp_reg_cko"], here)
    # A/B -> M (multiplier) or straight to the post-adder (A:B concatenated).
    if mult:
        if mreg:
            g.finish(ab, DELAY["dsp_ab_m"] + DELAY["dsp_setup"], here)
            g.begin(m, DELAY["dsp_reg_cko"], here)
        else:
            g.arc(ab, m, DELAY["dsp_ab_m"], t)
        pre = [(m, DELAY["dsp_m_p"])]
    else:
        pre = [(ab, DELAY["dsp_ab_p_nomult"])]
    # C, PCIN and the dynamic controls into the post-adder.
    cnode = (name, "C")
    for pin in ("C",):
        for a in ins.get(pin, []):
            if creg:
                g.finish(a, net(t, pin) + DELAY["dsp_setup"], here)
            else:
                g.arc(a, cnode, net(t, pin), t)
    if creg:
        g.begin(cnode, DELAY["dsp_reg_cko"], here)
    pre.append((cnode, DELAY["dsp_c_p"]))
    for pin in ("PCIN", "OPMODE", "ALUMODE", "CARRYIN", "CARRYINSEL", "CARRYCASCIN", "INMODE"):
        regd = param(c, {"OPMODE": "OPMODEREG", "ALUMODE": "ALUMODEREG", "CARRYIN": "CARRYINREG",
                         "CARRYINSEL": "CARRYINSELREG", "INMODE": "INMODEREG"}.get(pin, "-"), 0)
        for a in ins.get(pin, []):
            if regd:
                g.finish(a, net(t, pin) + DELAY["dsp_setup"], here)
            else:
                g.arc(a, cnode, net(t, pin), t)
    for src, d in pre:
        if preg:
            g.finish(src, d + DELAY["dsp_setup"], here)
        else:
            g.arc(src, p, d, t)
    if preg:
        g.begin(p, DELAY["dsp_p_cko"], here)
    for pin, bits in outs.items():
        for o in bits:
            if pin in ("ACOUT", "BCOUT"):
                g.arc(ab, o, 0.0, t)
            else:
                g.arc(p, o, DELAY["dsp_pcout"] if pin == "PCOUT" else 0.0, t)
    for pin in ("CEA1", "CEA2", "CEB1", "CEB2", "CEM", "CEP", "CEC", "RSTA", "RSTB", "RSTM", "RSTP", "RSTC"):
        for a in ins.get(pin, []):
            g.finish(a, NET_NS + DELAY["dsp_setup"], here)


def longest(g, keep):
    """Arrival times by a topological walk (Kahn) from the start points whose
    label `keep` accepts; nodes on a combinational loop are left out (counted)."""
    indeg = defaultdict(int)
    for a, outs in g.arcs.items():
        for b, _, _ in outs:
            indeg[b] += 1
    nodes = set(g.arcs) | set(indeg) | set(g.start)
    none = float("-inf")
    arr = {n: (g.start[n] if n in g.start and keep(g.kind.get(n, "")) else none) for n in nodes}
    pred = {}
    q = deque(n for n in nodes if indeg[n] == 0)
    seen = 0
    while q:
        a = q.popleft()
        seen += 1
        for b, d, cell in g.arcs.get(a, []):
            if arr[a] + d > arr[b]:
                arr[b] = arr[a] + d
                pred[b] = (a, cell)
            indeg[b] -= 1
            if indeg[b] == 0:
                q.append(b)
    return arr, pred, len(nodes) - seen


def worst(g, keep):
    """The longest path from the start points `keep` accepts to any end point."""
    arr, pred, loops = longest(g, keep)
    best = None
    for node, setup, what in g.end:
        t = arr.get(node, float("-inf"))
        if t > float("-inf") and (best is None or t + setup > best[0]):
            best = (t + setup, node, what)
    total, node, what = best
    cells = []
    n = node
    while n in pred:
        n, cell = pred[n]
        cells.append(cell)
    cells.reverse()
    return {
        "ns": total,
        "lut_levels": sum(1 for c in cells if c.startswith("LUT")),
        "carry4": sum(1 for c in cells if c == "CARRY4"),
        "dsp": len(set(dsp_hops(node, pred))),
        "muxf": sum(1 for c in cells if c.startswith("MUXF")),
        "path_cells": len(cells),
        "start": g.kind.get(n, "?"),
        "end": what,
        "cells": cells,
        "loops": loops,
    }


def is_gemm_operand(label):
    """The GEMM datapath's start points: the INP and WGT buffers' block RAM
    outputs (they feed only the MAC array) and the registers inside the
    pipelined MAC array (vta_gemm_array.sv: the DSPs' M/P registers and the
    adder-tree flip-flops). Every path from them is a GEMM stage: multiply,
    adder-tree levels, and in the last stage the accumulate and ACC write."""
    return (label.startswith(("RAMB", "DP16KD")) and ("@u_inp." in label or "@u_wgt." in label)) or \
        "@vta_gemm_array.sv:" in label


def analyse(path, family="xc7"):
    FAMILY["name"] = family
    with open(path) as f:
        mods = json.load(f)["modules"]
    tops = [m for m in mods.values() if int(str(m.get("attributes", {}).get("top", "0")), 2)]
    module = tops[0] if tops else mods["vta_core"]
    g, unknown = build(module)
    gemm = worst(g, is_gemm_operand)
    rest = worst(g, lambda label: not is_gemm_operand(label))
    top = gemm if gemm["ns"] >= rest["ns"] else rest
    return {
        "critical_ns": top["ns"],
        "fmax_mhz": 1000.0 / top["ns"],
        "gemm_ns": gemm["ns"],
        "rest_ns": rest["ns"],
        **{k: gemm[k] for k in ("lut_levels", "carry4", "dsp", "muxf", "path_cells")},
        "rest_start": rest["start"],
        "rest_end": rest["end"],
        "gemm_cells": gemm["cells"],
        "rest_cells": rest["cells"],
        "loops": top["loops"],
        "unknown": dict(unknown),
    }


def dsp_hops(node, pred):
    n = node
    while n in pred:
        if isinstance(n, tuple):
            yield n[0]
        n = pred[n][0]
    if isinstance(n, tuple):
        yield n[0]


def knob(overrides, name, default):
    for kv in overrides.split():
        if kv.startswith(name + "="):
            return int(kv.split("=")[1])
    return default


# Designs of depth.csv left out of the fit; their error is reported.
HOLDOUT = ("p06", "p10", "p15", "p02", "p16", "p11", "p08", "p13", "p09", "p12", "p14", "p18")
# A stage's fixed part, from the delay table: register clock-to-out, one
# net, setup. The fit gives the multiply, a tree level and the accumulate.
STAGE_NS = DELAY["ff_cko"] + NET_NS + DELAY["ff_setup"]


def gemm_stages(depth, block_in):
    """The stages of the RTL's GEMM datapath (vta_gemm_array.sv, vta_compute.sv
    GE; estimate/src/fmax.cpp gemm_stages): (first, levels, last) each."""
    t_levels = max(0, (block_in - 1).bit_length())
    e = min(max(depth - 4, 0), t_levels + 1)
    stages, cur = [], [1, 0, 0]
    if e >= 1:
        stages.append(cur)
        cur = [0, 0, 0]
    for t in range(1, t_levels + 1):
        cur[1] += 1
        if e >= 1 and (t * e) // (t_levels + 1) != ((t - 1) * e) // (t_levels + 1):
            stages.append(cur)
            cur = [0, 0, 0]
    cur[2] = 1
    stages.append(cur)
    return stages


def solve(a, b):
    """Least squares by the normal equations (Gauss-Jordan on a small system)."""
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] * y for r, y in zip(a, b))] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-12:
            raise SystemExit("critical_path --fit: the designs do not determine the stage model")
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def stage_ns(k, s):
    return k[0] + k[1] * s[0] + k[2] * s[1] + k[3] * s[2]


def fit(path, write):
    """The Fmax model's constants from depth.csv: each GEMM stage's path as
    kStageNs + kMultNs [first] + kLevelNs x levels + kAccNs [last] (kStageNs
    from the delay table, the others fitted), the GEMM
    path as the longest stage (least squares on the stage the model finds
    longest, iterated until that choice is stable), the rest of the core as
    the mean of its paths; the HOLDOUT designs are left out and their error
    reported. --write puts the constants in estimate/src/fmax_fit.inc."""
    import csv
    import os
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    for r in rows:
        r["stages"] = gemm_stages(knob(r["overrides"], "gemm.pipeline_depth", 4), knob(r["overrides"], "gemm.block_in", 8))
    fit_rows = [r for r in rows if r["name"] not in HOLDOUT]
    k = [STAGE_NS, 4.0, 2.0, 4.0]
    pick = None
    for _ in range(50):
        now = [max(r["stages"], key=lambda s: stage_ns(k, s)) for r in fit_rows]
        if now == pick:
            break
        pick = now
        k = [STAGE_NS] + solve([[s[0], s[1], s[2]] for s in pick], [float(r["gemm_ns"]) - STAGE_NS for r in fit_rows])
    # The rest of the core: its longest path is the ALU's 32-bit multiply
    # (three cascaded DSPs) where isa.alu_mul builds it, else the DMA
    # engines' address multiplies; one mean each.
    def no_mul(r):
        return "isa.alu_mul=false" in r["overrides"].split()
    mul_rows = [r for r in fit_rows if not no_mul(r)]
    nomul_rows = [r for r in fit_rows if no_mul(r)]
    if not mul_rows or not nomul_rows:
        raise SystemExit("critical_path --fit: the fitted designs need isa.alu_mul on and off")
    r0 = sum(float(r["rest_ns"]) for r in mul_rows) / len(mul_rows)
    r1 = sum(float(r["rest_ns"]) for r in nomul_rows) / len(nomul_rows)

    def rest(r):
        return r1 if no_mul(r) else r0

    def err(r):
        model = max(max(stage_ns(k, s) for s in r["stages"]), rest(r))
        meas = max(float(r["gemm_ns"]), float(r["rest_ns"]))
        return (max(stage_ns(k, s) for s in r["stages"]) - float(r["gemm_ns"])) / float(r["gemm_ns"]), \
            (model - meas) / meas
    for r in rows:
        g, p = err(r)
        print(f"# {r['name']:4} {'holdout' if r['name'] in HOLDOUT else 'fit':7} gemm {float(r['gemm_ns']):6.2f} ns "
              f"model {max(stage_ns(k, s) for s in r['stages']):6.2f} ({g * 100:+.1f} %), period error {p * 100:+.1f} %")
    worst = max(abs(err(r)[0]) for r in fit_rows)
    held = [r for r in rows if r["name"] in HOLDOUT]
    held_mean = sum(abs(err(r)[1]) for r in held) / len(held) if held else 0.0
    held_gemm = max((abs(err(r)[0]) for r in held), default=0.0)
    worst_rest = max(abs(rest(r) - float(r["rest_ns"])) / float(r["rest_ns"]) for r in fit_rows)
    lines = [
        "// Generated by estimate/calibration/critical_path.py --fit --write from",
        f"// estimate/calibration/depth.csv ({len(fit_rows)} designs fitted, {len(held)} held out). Do not edit.",
        "// GEMM stage path = stage_ns + mult_ns [first] + level_ns x adder-tree levels + acc_ns [last]",
        f"// (worst residual {worst * 100:.1f} %); the rest of the core (the floor): mean {r0:.2f} ns with the ALU's",
        f"// MUL ({len(mul_rows)} designs), {r1:.2f} ns without ({len(nomul_rows)}) (worst residual {worst_rest * 100:.1f} %);",
        f"// held-out designs ({', '.join(r['name'] for r in held)}): GEMM path within",
        f"// {held_gemm * 100:.1f} %, period mean absolute error {held_mean * 100:.1f} %.",
        "// xc7 -1 delay table, ns.",
        f"constexpr double kStageNs = {k[0]:.3f};",
        f"constexpr double kMultNs = {k[1]:.3f};",
        f"constexpr double kLevelNs = {k[2]:.3f};",
        f"constexpr double kAccNs = {k[3]:.3f};",
        f"constexpr double kRestNs = {r0:.3f};",
        f"constexpr double kRestNoMulNs = {r1:.3f};",
        f"constexpr double kDepthFitResidual = {max(worst, worst_rest):.4f};",
        f"constexpr double kHeldOutError = {held_mean:.4f};",
    ]
    print("\n".join(lines))
    if write:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        with open(os.path.join(root, "estimate", "src", "fmax_fit.inc"), "w") as f:
            f.write("\n".join(lines) + "\n")


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--header":
        print(HEADER)
        return
    if len(sys.argv) >= 2 and sys.argv[1] == "--fit":
        args = [a for a in sys.argv[2:] if a != "--write"]
        fit(args[0] if args else DEPTH_CSV, "--write" in sys.argv)
        return
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    family = "xc7"
    if "--family" in sys.argv:
        i = sys.argv.index("--family")
        family = sys.argv[i + 1] if i + 1 < len(sys.argv) else ""
        if family not in ("xc7", "ecp5"):
            print(f"critical_path: unknown family '{family}' (known: xc7, ecp5)", file=sys.stderr)
            sys.exit(2)
    r = analyse(sys.argv[1], family)
    if r["loops"]:
        print(f"critical_path: {r['loops']} nodes on combinational loops left out", file=sys.stderr)
    if r["unknown"]:
        print(f"critical_path: cells treated as registers (no timing model): {r['unknown']}", file=sys.stderr)
    print(",".join(f"{r[k]:.2f}" if isinstance(r[k], float) else str(r[k]) for k in HEADER.split(",")))
    if "--path" in sys.argv:
        print("gemm: " + " -> ".join(r["gemm_cells"]))
        print("rest: " + " -> ".join(r["rest_cells"]))


if __name__ == "__main__":
    main()
