#!/usr/bin/env bash
# Sets up, builds (warnings are errors) and runs the whole test suite.
# Extra arguments go to ctest (e.g. -L error).
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
