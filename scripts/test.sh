#!/usr/bin/env bash
# Sets up, builds (warnings are errors) and runs the whole test suite, then
# the sanitizer build and the fuzz targets (scripts/asan.sh). Extra arguments
# go to the main suite's ctest (e.g. -L error).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh ci
# The conformance vectors ship in tests/data/conformance; VTA_CONFORMANCE_DIR names another set.
conf="${VTA_CONFORMANCE_DIR:-$(pwd)/tests/data/conformance/vectors}"
if [ -d "$conf" ]; then
  export VTA_CONFORMANCE_DIR="$conf"
else
  echo "test.sh: no conformance vectors at $conf; the conformance tests will fail in CI and skip elsewhere"
fi
ctest --preset ci -j "$(nproc)" "$@"
# The sanitizer suite and the fuzz targets' short runs (scripts/asan.sh),
# after the main suite; VTA_SKIP_ASAN=1 leaves them out (a quick local run).
if [ "${VTA_SKIP_ASAN:-0}" != 1 ]; then bash scripts/asan.sh; fi
