#!/usr/bin/env bash
# The sanitizer stage of CI (issue 16): builds the `asan` preset (clang,
# AddressSanitizer + UndefinedBehaviorSanitizer, no recovery; the verilated
# models unsanitized), runs every test label but `synth` under it, then runs
# each libFuzzer target of the same tree for FUZZ_SECONDS (default 45) on its
# committed corpus. Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# A report aborts the test (-fno-sanitize-recover=all); the leak check runs
# at exit; SystemC, pocl and protobuf keep some memory till exit (lsan.supp).
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0}"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)"
conf="${VTA_CONFORMANCE_DIR:-$(pwd)/tests/data/conformance/vectors}"
[ -d "$conf" ] && export VTA_CONFORMANCE_DIR="$conf"
ctest --preset asan -j "$(nproc)" -LE synth "$@"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-45}"
