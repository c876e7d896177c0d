#!/usr/bin/env bash
# ctest (label error): estimate/calibration/ecp5_pnr.py refuses bad input
# with one line and exit 2 before it looks for the tools or runs anything.
#   ecp5_pnr_errors.sh VTA
set -uo pipefail
vta=$1
pnr="$(cd "$(dirname "$0")/.." && pwd)/estimate/calibration/ecp5_pnr.py"
bad=0
expect() {  # expect "what the message must say" ARGS...
  local want=$1
  shift
  out=$("$pnr" "$@" 2>&1)
  rc=$?
  lines=$(printf '%s\n' "$out" | wc -l)
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: ecp5_pnr.py $*: exit $rc, $lines lines: $out"
    bad=1
  else
    echo "PASS: $out"
  fi
}
expect "unknown part '99k' (known: 25k, 45k, 85k" "$vta" d1 --part 99k
expect "speed grade '9' is not 6, 7 or 8" "$vta" d1 --speed 9
expect "design name 'a/b' must be" "$vta" a/b
expect "override 'gemm.block_in' is not k=v" "$vta" d1 gemm.block_in
expect "is not an executable vta" /nonexistent d1
expect "usage: ecp5_pnr.py VTA NAME"
expect "argument --freq: invalid float value: 'fast'" "$vta" d1 --freq fast
expect "design d1: " "$vta" d1 gemm.block_in=3 --work "${TMPDIR:-/tmp}/ecp5-errors"
exit $bad
