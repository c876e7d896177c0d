#!/usr/bin/env python3
"""Per-group LUT and FF counts of one yosys synth_xilinx log of vta_core.

Reads the last statistics report (a block per module, then the design
hierarchy with instance counts) and prints
    dma_lut,dma_ff,compute_lut,compute_ff
where dma is every vta_dma_load and vta_store instance and compute is
vta_compute's own cells (its DMA engines and RAMs are modules of their own).
The fit (fit.py) prices the DMA engines and the compute datapath on these,
and the rest of the design on the totals minus them.
    module_groups.py LOG
"""
import re
import sys


def parse(text):
    last = text.rfind("Printing statistics.")
    text = text[last:]
    modules, counts = {}, {}
    name = None
    hier = False
    for line in text.splitlines():
        m = re.match(r"^=== (.*) ===$", line)
        if m:
            name = m.group(1)
            hier = name == "design hierarchy"
            if not hier:
                modules[name] = {}
            continue
        if hier:
            m = re.match(r"^\s+(\S+)\s+(\d+)$", line)
            if m and not m.group(1).startswith(("$_", "LUT", "FD", "CARRY", "DSP", "RAM", "MUX", "INV", "BUF")):
                counts[m.group(1)] = counts.get(m.group(1), 0) + int(m.group(2))
            continue
        m = re.match(r"^\s+(\S+)\s+(\d+)$", line)
        if name and m:
            modules[name][m.group(1)] = int(m.group(2))
    return modules, counts


def luts(cells):
    return sum(v for k, v in cells.items() if re.fullmatch(r"LUT[1-6]", k))


def ffs(cells):
    return sum(v for k, v in cells.items() if re.fullmatch(r"FD[RSCP]E", k))


def groups(path):
    modules, counts = parse(open(path).read())
    dma_lut = dma_ff = comp_lut = comp_ff = 0
    for name, cells in modules.items():
        n = counts.get(name, 0)
        if name.endswith("\\vta_dma_load") or name.endswith("\\vta_store") or name == "vta_store":
            dma_lut += n * luts(cells)
            dma_ff += n * ffs(cells)
        elif "vta_compute" in name:
            comp_lut += n * luts(cells)
            comp_ff += n * ffs(cells)
    return dma_lut, dma_ff, comp_lut, comp_ff


if __name__ == "__main__":
    print(",".join(str(v) for v in groups(sys.argv[1])))
