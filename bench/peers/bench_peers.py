#!/usr/bin/env python3
"""Peers side by side (issue 34 item 10): the same ResNet-50 conv layers on a
16x16 int8 array through SCALE-Sim v3, ZigZag, and vta-lab's sweep stages 1
and 2; time per design point and total cycles of each (bench/peers/README.md).

  /tmp/peers/bin/python bench/peers/bench_peers.py --vta /work/main/build/ci/apps/vta [--layers N]

Each peer design point runs in a child process of this script (`--worker`),
so its wall and CPU time include the interpreter start and the imports; the
child also reports the time of the simulation call alone ("inner").
"""
import argparse
import csv
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# vta-1x16x16 (configs/vta-1x16x16.yaml): 16x16 int8 MACs, 32 KiB INP,
# 256 KiB WGT, 128 KiB ACC, 64-bit memory bus.
ARRAY = 16
INP_KB, WGT_KB, ACC_KB = 32, 256, 128


def resnet50_convs():
    """The distinct conv shapes of ResNet-50 at 224x224, in graph order (as
    compiler/src/frontend/zoo.cpp builds it: stride in the 3x3), with how
    often each occurs. Fields: C, H, W (input), K (outputs), R (kernel), S
    (stride), P (pad)."""
    seen, order = {}, []

    def conv(c, h, k, r, s, p):
        key = (c, h, h, k, r, s, p)
        if key not in seen:
            seen[key] = 0
            order.append(key)
        seen[key] += 1
        return (h + 2 * p - r) // s + 1

    h = conv(3, 224, 64, 7, 2, 3)
    h = (h + 2 - 3) // 2 + 1  # max pool 3/2 pad 1: 56
    ch = 64
    for stage, blocks in enumerate([3, 4, 6, 3]):
        width = 64 << stage
        for i in range(blocks):
            stride = 2 if stage > 0 and i == 0 else 1
            out = width * 4
            if stride != 1 or ch != out:
                conv(ch, h, out, 1, stride, 0)
            conv(ch, h, width, 1, 1, 0)
            h2 = conv(width, h, width, 3, stride, 1)
            conv(width, h2, out, 1, 1, 0)
            ch, h = out, h2
    return [dict(zip("C H W K R S P".split(), k), count=seen[k]) for k in order]


def out_hw(l):
    return (l["H"] + 2 * l["P"] - l["R"]) // l["S"] + 1


def macs(l):
    return l["C"] * l["K"] * l["R"] * l["R"] * out_hw(l) ** 2


def zoo_name(l):
    return "conv:{C},{H},{W},{K},{R},{S},{P}".format(**l)


# ---------------------------------------------------------------- SCALE-Sim

def numpy2_shim():
    """SCALE-Sim 3.0.0 ends each layer's memory service with
    int(max(list of 1-element arrays)), which NumPy 2 refuses ("only
    0-dimensional arrays can be converted to Python scalars"). The trace
    matrix it has just built holds the same service cycles in its first
    column: take their maximum there. Nothing else is changed."""
    import numpy as np
    from scalesim.memory.double_buffered_scratchpad_mem import double_buffered_scratchpad as dbsp
    orig = dbsp.service_memory_requests
    if getattr(orig, "_peers_shim", False):
        return

    def service(self, *a, **k):
        try:
            orig(self, *a, **k)
        except TypeError as e:
            if "0-dimensional" not in str(e):
                raise
            self.total_cycles = int(np.max(self.ofmap_trace_matrix[:, 0]))
            self.traces_valid = True

    service._peers_shim = True
    dbsp.service_memory_requests = service


def scalesim_point(layers, df, tmp):
    """SCALE-Sim v3 in CALC bandwidth mode (stall-free DRAM demand; no
    Ramulator), word size 1 byte, SRAMs sized as VTA's."""
    cfg = os.path.join(tmp, "vta16.cfg")
    with open(cfg, "w") as f:
        f.write(f"""[general]
run_name = vta16_{df}

[architecture_presets]
ArrayHeight: {ARRAY}
ArrayWidth: {ARRAY}
IfmapSramSzkB: {INP_KB}
FilterSramSzkB: {WGT_KB}
OfmapSramSzkB: {ACC_KB}
IfmapOffset: 0
FilterOffset: 10000000
OfmapOffset: 20000000
Bandwidth: 8
Dataflow: {df}
MemoryBanks: 1
ReadRequestBuffer: 512
WriteRequestBuffer: 512

[layout]
IfmapCustomLayout: False
IfmapSRAMBankBandwidth: 10
IfmapSRAMBankNum: 10
IfmapSRAMBankPort: 2
FilterCustomLayout: False
FilterSRAMBankBandwidth: 10
FilterSRAMBankNum: 10
FilterSRAMBankPort: 2

[sparsity]
SparsitySupport: false
SparseRep: ellpack_block
OptimizedMapping: false
BlockSize: 8
RandomNumberGeneratorSeed: 40

[run_presets]
InterfaceBandwidth: CALC
UseRamulatorTrace: False
""")
    topo = os.path.join(tmp, "layers.csv")
    layout = os.path.join(tmp, "layout.csv")
    with open(topo, "w") as f, open(layout, "w") as g:
        f.write("Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n")
        g.write("Layer name," + ",".join(f"f{i}" for i in range(20)) + ",\n")
        for i, l in enumerate(layers):
            # SCALE-Sim has no padding: the ifmap is given padded.
            hp = l["H"] + 2 * l["P"]
            f.write(f"L{i}, {hp}, {hp}, {l['R']}, {l['R']}, {l['C']}, {l['K']}, {l['S']},\n")
            g.write(f"L{i}," + ",".join(["1"] * 20) + ",\n")
    from scalesim.scale_sim import scalesim
    numpy2_shim()
    t0, c0 = time.perf_counter(), time.process_time()
    s = scalesim(save_disk_space=True, verbose=False, config=cfg, topology=topo, layout=layout)
    s.run_scale(top_path=tmp)
    inner = (time.perf_counter() - t0, time.process_time() - c0)
    per_layer = []
    with open(os.path.join(tmp, f"vta16_{df}", "COMPUTE_REPORT.csv")) as f:
        rows = list(csv.reader(f))
    for r in rows[1:]:
        # LayerID, Total Cycles (incl. prefetch), Total Cycles, Stall Cycles, ...
        per_layer.append({"cycles": int(float(r[2])), "cycles_incl_prefetch": int(float(r[1])),
                          "stall": int(float(r[3]))})
    return {"inner_wall_s": inner[0], "inner_cpu_s": inner[1], "layers": per_layer,
            "cycles": sum(p["cycles"] for p in per_layer)}


# ------------------------------------------------------------------ ZigZag

def zigzag_accelerator(path):
    """tpu_like.yaml adapted: a 16x16 weight-stationary array (D1 = K, D2 = C,
    systolic along both), a weight register and a 32-bit accumulator register
    per PE, VTA's three SRAMs (sizes in bits) and a 64-bit DRAM port. The
    per-access energies are tpu_like.yaml's / edge_tpu_like.yaml's (pJ), not
    calibrated to VTA."""
    def port(name, typ, bw, alloc):
        return {"name": name, "type": typ, "bandwidth_min": bw, "bandwidth_max": bw, "allocation": alloc}

    mems = {
        "rf_w": {"size": 8, "r_cost": 0.01, "w_cost": 0.01, "area": 0, "latency": 1, "operands": ["I2"],
                 "ports": [port("r_port_1", "read", 8, ["I2, tl"]), port("w_port_1", "write", 8, ["I2, fh"])],
                 "served_dimensions": []},
        "rf_acc": {"size": 32, "r_cost": 0.02, "w_cost": 0.02, "area": 0, "latency": 1, "operands": ["O"],
                   "ports": [port("r_port_1", "read", 32, ["O, tl"]), port("r_port_2", "read", 32, ["O, th"]),
                             port("w_port_1", "write", 32, ["O, fh"]), port("w_port_2", "write", 32, ["O, fl"])],
                   "served_dimensions": []},
        "sram_inp": {"size": INP_KB * 8192, "r_cost": 22.9, "w_cost": 52.01, "area": 0, "latency": 1,
                     "operands": ["I1"],
                     "ports": [port("r_port_1", "read", 8 * ARRAY, ["I1, tl"]),
                               port("w_port_1", "write", 8 * ARRAY, ["I1, fh"])],
                     "served_dimensions": ["D1", "D2"]},
        "sram_wgt": {"size": WGT_KB * 8192, "r_cost": 416.16, "w_cost": 378.4, "area": 0, "latency": 1,
                     "operands": ["I2"],
                     "ports": [port("r_port_1", "read", 8 * ARRAY * ARRAY, ["I2, tl"]),
                               port("w_port_1", "write", 8 * ARRAY * ARRAY, ["I2, fh"])],
                     "served_dimensions": ["D1", "D2"]},
        "sram_acc": {"size": ACC_KB * 8192, "r_cost": 100.0, "w_cost": 110.0, "area": 0, "latency": 1,
                     "operands": ["O"],
                     "ports": [port("r_port_1", "read", 32 * ARRAY, ["O, tl", "O, th"]),
                               port("w_port_1", "write", 32 * ARRAY, ["O, fh", "O, fl"])],
                     "served_dimensions": ["D1", "D2"]},
        "dram": {"size": 10000000000, "r_cost": 700, "w_cost": 750, "area": 0, "latency": 1,
                 "operands": ["I1", "I2", "O"],
                 "ports": [port("rw_port_1", "read_write", 64,
                                ["I1, fh", "I1, tl", "I2, fh", "I2, tl", "O, fh", "O, tl", "O, fl", "O, th"])],
                 "served_dimensions": ["D1", "D2"]},
    }
    acc = {"name": "vta_1x16x16_like", "memories": mems,
           "operational_array": {"unit_energy": 0.04, "unit_area": 1, "dimensions": ["D1", "D2"],
                                 "sizes": [ARRAY, ARRAY], "systolic_dimensions": ["D1", "D2"]}}
    import yaml
    with open(path, "w") as f:
        yaml.safe_dump(acc, f, sort_keys=False)


def zigzag_point(layers, opt, tmp):
    import logging
    acc = os.path.join(tmp, "vta16.yaml")
    zigzag_accelerator(acc)
    mapping = os.path.join(tmp, "mapping.yaml")
    import yaml
    with open(mapping, "w") as f:
        yaml.safe_dump([{"name": "default", "spatial_mapping": {"D1": [f"K, {ARRAY}"], "D2": [f"C, {ARRAY}"]},
                         "memory_operand_links": {"O": "O", "W": "I2", "I": "I1"}}], f, sort_keys=False)
    workload = []
    for i, l in enumerate(layers):
        o = out_hw(l)
        # The input extent follows from the relations (S*(O-1)+R): the padded input.
        workload.append({"id": i, "name": f"L{i}", "operator_type": "Conv",
                         "equation": "O[b][k][oy][ox]+=W[k][c][fy][fx]*I[b][c][iy][ix]",
                         "dimension_relations": [f"ix={l['S']}*ox+1*fx", f"iy={l['S']}*oy+1*fy"],
                         "loop_dims": ["B", "K", "C", "OY", "OX", "FY", "FX"],
                         "loop_sizes": [1, l["K"], l["C"], o, o, l["R"], l["R"]],
                         "operand_precision": {"W": 8, "I": 8, "O": 32, "O_final": 8},
                         "operand_source": {"I": i, "W": i}})
    from zigzag.api import get_hardware_performance_zigzag
    t0, c0 = time.perf_counter(), time.process_time()
    energy, latency, cmes = get_hardware_performance_zigzag(
        workload=workload, accelerator=acc, mapping=mapping, opt=opt,
        dump_folder=os.path.join(tmp, "out"), loma_show_progress_bar=False)
    inner = (time.perf_counter() - t0, time.process_time() - c0)
    logging.disable(logging.CRITICAL)
    per_layer = [{"cycles": float(c.latency_total2), "energy_pj": float(c.energy_total),
                  "ideal_cycles": float(c.ideal_cycle)} for c, _ in cmes[0][1]]
    return {"inner_wall_s": inner[0], "inner_cpu_s": inner[1], "layers": per_layer,
            "cycles": float(latency), "energy_pj": float(energy)}


def worker(args):
    layers = resnet50_convs()[: args.layers]
    tool, variant = args.worker.split(":")
    with tempfile.TemporaryDirectory(prefix=f"peers-{tool}-") as tmp:
        if tool == "scalesim":
            res = scalesim_point(layers, variant, tmp)
        else:
            res = zigzag_point(layers, variant, tmp)
    sys.stdout.flush()
    print("RESULT " + json.dumps(res))


# ------------------------------------------------------------------ driver

def timed(cmd, timeout, env=None):
    """Run cmd; wall and CPU (user+sys of the waited-for children) seconds."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or "", f"timed out after {timeout} s"
        out = out.decode() if isinstance(out, bytes) else out
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return rc, out, err, wall, cpu


def run_peer(tool, variant, n, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", f"{tool}:{variant}", "--layers", str(n)]
    rc, out, err, wall, cpu = timed(cmd, timeout)
    row = {"wall_s": wall, "cpu_s": cpu}
    res = [l for l in out.splitlines() if l.startswith("RESULT ")]
    if rc != 0 or not res:
        tail = (err or out).strip().splitlines()[-3:]
        row["error"] = f"rc {rc}: " + " | ".join(tail)
        return row
    row.update(json.loads(res[-1][7:]))
    return row


def vta_spec(path, networks, dram):
    with open(path, "w") as f:
        f.write("name: peers\nbase: vta-1x16x16\n")
        if dram:
            f.write(f"set: {{memory.dram: {dram}}}\n")
        f.write("networks:\n")
        for n in networks:
            f.write(f'  - zoo: "{n}"\n')
        f.write("objectives:\n  - minimize: cycles\n")


def run_vta(vta, networks, stage, tmp, tag, dram, timeout):
    spec = os.path.join(tmp, f"{tag}.yaml")
    db = os.path.join(tmp, f"{tag}-s{stage}.db")
    vta_spec(spec, networks, dram)
    env = dict(os.environ)
    # build/<preset>/apps/vta -> the checkout's configs/ unless the caller set it
    env.setdefault("VTA_CONFIG_DIR", os.path.normpath(os.path.join(os.path.dirname(vta), "..", "..", "..", "configs")))
    cmd = [vta, "sweep", "run", "-q", "-j", "1", "--max-stage", str(stage), spec, "--db", db]
    rc, out, err, wall, cpu = timed(cmd, timeout, env)
    row = {"wall_s": wall, "cpu_s": cpu}
    if rc != 0:
        row["error"] = f"rc {rc}: " + " | ".join((err or out).strip().splitlines()[-3:])
        return row
    p = subprocess.run([vta, "sweep", "export", "--csv", db], capture_output=True, text=True, env=env)
    name = {1: "analytic", 2: "systemc"}[stage]
    by_net = {}
    for r in csv.DictReader(p.stdout.splitlines()):
        if r["stage_name"] == name:
            if r["status"] != "ok":
                row["error"] = f"{r['network']}: {r['status']} {r['error']}"
            by_net[r["network"]] = r
    row["layers"] = [{"cycles": float(by_net[n]["cycles"]) if n in by_net and by_net[n]["cycles"] else None,
                      "stage_wall_s": float(by_net[n]["wall_s"]) if n in by_net else None} for n in networks]
    missing = [n for n in networks if n not in by_net or not by_net[n]["cycles"]]
    if missing and "error" not in row:
        row["error"] = f"no {name} cycles for {', '.join(missing)}"
    row["cycles"] = sum(l["cycles"] or 0 for l in row["layers"])
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vta", help="the vta CLI (e.g. /work/main/build/ci/apps/vta)")
    ap.add_argument("--layers", type=int, default=0, help="the first N distinct conv shapes (0: all 23)")
    ap.add_argument("--scalesim-layers", type=int, default=2,
                    help="SCALE-Sim runs only the first N shapes (its cycle loop is slow); every tool runs them too")
    ap.add_argument("--dram", default="", help="vta: memory.dram override (default: the preset's ddr3-1066)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per design point and tool")
    ap.add_argument("--skip", default="", help="comma-separated: scalesim-ws,scalesim-os,zigzag,vta-s1,vta-s2,resnet50")
    ap.add_argument("--out", default=os.path.join(HERE, "results"), help="folder for peers.csv / peers.md / peers.json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    all_layers = resnet50_convs()
    if args.layers <= 0 or args.layers > len(all_layers):
        args.layers = len(all_layers)
    if args.worker:
        return worker(args)
    if not args.vta:
        ap.error("--vta is required")
    skip = set(filter(None, args.skip.split(",")))
    vta = os.path.abspath(args.vta)
    nsub = max(1, min(args.scalesim_layers, args.layers))
    sets = [nsub] + ([args.layers] if args.layers > nsub else [])
    rows = []
    for n in sets:
        layers = all_layers[:n]
        nets = [zoo_name(l) for l in layers]
        m = sum(macs(l) for l in layers)
        print(f"{n} distinct ResNet-50 conv shapes, {m / 1e9:.3f} GMAC (ideal on 16x16: {m / 256:.0f} cycles)",
              flush=True)
        with tempfile.TemporaryDirectory(prefix="peers-vta-") as tmp:
            for stage in (1, 2):
                if f"vta-s{stage}" in skip:
                    continue
                r = run_vta(vta, nets, stage, tmp, "layers", args.dram, args.timeout)
                rows.append(dict(tool=f"vta-lab stage {stage}", variant="vta-1x16x16", n=n, macs=m, **r))
                print(f"  {rows[-1]['tool']}: {r['wall_s']:.2f} s {r.get('error', '')}", flush=True)
        peers = [("ZigZag", "zigzag", "latency")]
        if n == nsub:
            peers = [("SCALE-Sim v3", "scalesim", "ws"), ("SCALE-Sim v3", "scalesim", "os")] + peers
        for label, tool, variant in peers:
            key = "zigzag" if tool == "zigzag" else f"scalesim-{variant}"
            if key in skip:
                continue
            r = run_peer(tool, variant, n, args.timeout)
            rows.append(dict(tool=label, variant=variant if tool == "scalesim" else f"opt={variant}", n=n, macs=m,
                             **r))
            print(f"  {label} {variant}: {r['wall_s']:.2f} s {r.get('error', '')}", flush=True)
    if "resnet50" not in skip:
        with tempfile.TemporaryDirectory(prefix="peers-r50-") as tmp:
            for stage in (1, 2):
                r = run_vta(vta, ["resnet50"], stage, tmp, "resnet50", args.dram, args.timeout)
                rows.append(dict(tool=f"vta-lab stage {stage}", variant="vta-1x16x16", n=0, macs=0, **r))
                print(f"  whole resnet50, {rows[-1]['tool']}: {r['wall_s']:.2f} s {r.get('error', '')}", flush=True)
    report(args, all_layers, rows)


def report(args, all_layers, rows):
    """peers.csv / peers.md (the table) and peers.json (every row and the
    per-layer cycles) under --out."""
    base = {(r["tool"], r["n"]): r for r in rows if r["tool"].startswith("vta-lab") and "error" not in r}
    table = []
    for r in rows:
        ok = "error" not in r
        s1, s2 = base.get(("vta-lab stage 1", r["n"])), base.get(("vta-lab stage 2", r["n"]))
        peer = not r["tool"].startswith("vta-lab")
        table.append({
            "tool": r["tool"], "variant": r["variant"],
            "covers": f"{r['n']} conv shapes" if r["n"] else "whole ResNet-50",
            "wall_s": f"{r['wall_s']:.2f}", "cpu_s": f"{r['cpu_s']:.2f}",
            "inner_wall_s": f"{r['inner_wall_s']:.2f}" if "inner_wall_s" in r else "",
            "cycles": f"{r['cycles']:.0f}" if ok else "",
            "util_pct": f"{100 * r['macs'] / 256 / r['cycles']:.1f}" if ok and r["n"] else "",
            "wall_vs_stage1": f"{r['wall_s'] / s1['wall_s']:.0f}x" if peer and s1 else "",
            "wall_vs_stage2": f"{r['wall_s'] / s2['wall_s']:.0f}x" if peer and s2 else "",
            "note": r.get("error", "") or (f"energy {r['energy_pj'] / 1e6:.0f} uJ (tpu_like costs)"
                                           if "energy_pj" in r else ""),
        })
    os.makedirs(args.out, exist_ok=True)
    cols = list(table[0].keys())
    with open(os.path.join(args.out, "peers.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(table)
    up = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    head = (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
            f"{os.cpu_count()} cores, python {platform.python_version()}; uptime at the end: {up}\n\n")
    md = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    md += ["| " + " | ".join(t[c] for c in cols) + " |" for t in table]
    with open(os.path.join(args.out, "peers.md"), "w") as f:
        f.write(head + "\n".join(md) + "\n")
    per_layer = []
    for i, l in enumerate(all_layers[: args.layers]):
        e = {"layer": zoo_name(l), "count_in_resnet50": l["count"], "macs": macs(l)}
        for r in rows:
            if "layers" in r and i < len(r["layers"]):
                e[f"{r['tool']} {r['variant']} ({r['n']})"] = r["layers"][i]["cycles"]
        per_layer.append(e)
    with open(os.path.join(args.out, "peers.json"), "w") as f:
        json.dump({"header": head.strip(), "rows": rows, "per_layer": per_layer}, f, indent=1)
    print()
    print(head + "\n".join(md))


if __name__ == "__main__":
    main()
