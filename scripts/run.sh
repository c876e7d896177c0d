#!/usr/bin/env bash
# The main job: set up, build, and run the sample program and the
# conformance vectors on the default config (vta-1x16x16) on the SystemC
# cycle model, printing what ran, the cycles and stats, and the bit-exact
# result check. Extra arguments go to `vta run` (e.g. --backend golden).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh dev
programs=(examples/*.vasm)
conf="${VTA_CONFORMANCE_DIR:-$(pwd)/../shared/conformance/vectors}"
if [ -d "$conf" ]; then programs+=("$conf"/*); fi
exec ./build/dev/apps/vta run --config vta-1x16x16 --backend systemc "$@" "${programs[@]}"
