#!/usr/bin/env bash
# Synthesizes the RTL core for one preset with yosys's generic flow and writes
# the gate-level netlist as Verilog, for simulation against the RTL in
# Verilator (tests/test_rtl_netlist.cpp; sim/rtl/README.md, "Gate-level check").
#   scripts/rtl_netlist.sh PRESET OUT.v [LOG]
#
# - SYNTHESIS is left undefined (-nosynthesis; read_verilog defines it by
#   default) so that the debug read port of each buffer
#   (vta_ram.sv) exists in the netlist: the test reads every buffer through it.
# - Undriven or implicitly declared nets are errors (as in rtl_synth.sh).
# - Logic becomes generic gates ($_AND_, $_DFF_P_, ...; abc -fast); buffers stay
#   $mem cells, which write_verilog prints as a reg array with one always block
#   per write port and per registered read port (no memory_map: RAMs as
#   flip-flops would make the netlist several times larger). The script fails
#   if anything else is left behavioural: an always block that is not a plain
#   "always @(posedge clk)" memory port, or a cell that is neither a gate nor
#   a flip-flop.
set -euo pipefail
preset=${1:?usage: rtl_netlist.sh PRESET OUT.v [LOG]}
out=${2:?usage: rtl_netlist.sh PRESET OUT.v [LOG]}
root=$(cd "$(dirname "$0")/.." && pwd)
log=${3:-$out.log}
pkg="$root/sim/rtl/generated/vta_pkg_${preset}.sv"
[ -f "$pkg" ] || { echo "rtl_netlist: no generated package for '$preset' ($pkg)" >&2; exit 2; }
mapfile -t srcs < <(ls "$root"/sim/rtl/src/*.sv)
tmp="$out.tmp"
t0=$(date +%s)
if ! yosys -q -l "$log" -e "has no driver|implicitly declared" -p "
    read_verilog -sv -nosynthesis $pkg ${srcs[*]}
    synth -flatten -top vta_core -run :fine
    opt -fast -full
    techmap
    opt -fast
    abc -fast
    opt_clean
    stat
    write_verilog -noattr $tmp" >/dev/null 2>&1; then
  echo "rtl_netlist: yosys failed for $preset; see $log:" >&2
  grep -iE "error|has no driver|implicitly declared" "$log" | head -5 >&2
  exit 1
fi
t1=$(date +%s)

# What is left behavioural: only memories. In the stat block every cell must
# be a gate or flip-flop ($_..._) or a memory ($mem / $mem_v2) ...
bad_cells=$(awk '/Number of cells:/{f=1; next} f && NF == 2 && $1 ~ /^\$/ && $1 !~ /^\$_[A-Z0-9_]+_$/ && $1 !~ /^\$mem(_v2)?$/ {print $1}' "$log" | sort -u)
if [ -n "$bad_cells" ]; then
  echo "rtl_netlist: cells other than gates, flip-flops and memories remain: $bad_cells" >&2
  exit 1
fi
# ... and every always block is clocked by clk: a flip-flop cell, or a
# memory's write port or registered read port (no "always @*", no latch).
bad_always=$(grep -E '^\s*always' "$tmp" | grep -vcE '^\s*always @\(posedge clk\)( begin)?\s*$' || true)
if [ "$bad_always" != 0 ]; then
  echo "rtl_netlist: $bad_always always blocks not clocked by clk:" >&2
  grep -nE '^\s*always' "$tmp" | grep -vE 'always @\(posedge clk\)( begin)?\s*$' | head -5 >&2
  exit 1
fi
mv "$tmp" "$out"
cells=$(awk '/Number of cells:/{n = $4} END {print n + 0}' "$log")
mems=$(grep -cE '^\s*reg \[[0-9]+:0\] [^ ]+ +\[[0-9]+:[0-9]+\];' "$out" || true)
echo "$preset: $cells cells, $mems memories, $(($(stat -c %s "$out") / 1024)) KiB, $((t1 - t0)) s"
