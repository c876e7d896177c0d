#!/usr/bin/env bash
# Rewrites every committed generated file from the tables (fields.def,
# opcodes.def, config_knobs.def), as the isa tests (test_isa_generated)
# expect them: the SystemVerilog package of each preset and of the verilated
# test designs, the OpenCL defines of each preset, and docs/config.md.
# Usage: scripts/regenerate.sh [VTA]   (VTA: the vta program; default
# build/dev/apps/vta, else build/ci/apps/vta)
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
vta="${1:-}"
if [ -z "$vta" ]; then
  for v in build/dev/apps/vta build/ci/apps/vta; do
    [ -x "$v" ] && vta=$v && break
  done
fi
[ -n "$vta" ] && [ -x "$vta" ] || { echo "regenerate.sh: no vta program; build it first or name it" >&2; exit 2; }
for f in configs/*.yaml; do
  p=$(basename "$f" .yaml)
  "$vta" gen sv --config "$p" -o "sim/rtl/generated/vta_pkg_$p.sv"
  "$vta" gen cl --config "$p" -o "kernels/generated/vta_defines_$p.h"
done
for f in tests/configs/rtl-*.yaml; do
  "$vta" gen sv --config "$f" -o "sim/rtl/generated/vta_pkg_$(basename "$f" .yaml).sv"
done
"$vta" config schema -o docs/config.md
git status --short -- sim/rtl/generated kernels/generated docs/config.md
