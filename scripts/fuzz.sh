#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang, AddressSanitizer and
# UndefinedBehaviorSanitizer) and runs each for SECONDS on a working corpus
# seeded from files the repository already holds (tests/fuzz/README.md).
# A finding (crash, leak, sanitizer report, an exception other than
# vta::Error, an empty message, a hang past 10 s) stops the target and leaves
# crash-*/timeout-* files in build/fuzz/findings/TARGET.
#   scripts/fuzz.sh [SECONDS] [TARGET ...]   (default 60 s; all targets)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config vasm onnx sweep_spec)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target vta "${targets[@]/#/fuzz_}"
root=$(pwd) out=build/fuzz
seed() {  # seed the working corpus of target $1 (idempotent)
  local c="$out/corpus/$1"
  mkdir -p "$c"
  [ -d "tests/fuzz/regressions/$1" ] && cp -n "tests/fuzz/regressions/$1"/* "$c"/
  case $1 in
    config) cp -n configs/*.yaml tests/configs/*.yaml "$c"/ 2>/dev/null || true ;;
    vasm) cp -n examples/*.vasm tests/data/repro-programs/*.vasm "$c"/ 2>/dev/null || true ;;
    sweep_spec) cp -n sweeps/examples/*.yaml "$c"/ ;;
    onnx)
      cp -n tests/data/onnx-crashes/*.onnx "$c"/
      for m in lenet5 conv:16,8,8,16,3,1,1 dwconv:16,8,8,3,1,1 avgpool:16,8,8,2 maxpool:16,8,8,2,2,0 dense:64,32; do
        f="$c/zoo-${m//[:,]/_}.onnx"
        [ -f "$f" ] || VTA_CONFIG_DIR="$root/configs" "$out/apps/vta" zoo export "$m" -o "$f" >/dev/null
      done ;;
  esac
}
for t in "${targets[@]}"; do
  seed "$t"
  mkdir -p "$out/findings/$t"
  echo "== fuzz_$t for ${secs}s"
  (cd "$out/findings/$t" &&
    "$root/$out/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
      -use_value_profile=1 "$root/$out/corpus/$t" 2>&1 | tee "$root/$out/fuzz_$t.log" |
      grep -E "^#[0-9]+.*(INITED|DONE)|stat::number_of_executed_units|ERROR|SUMMARY" || true)
  ! ls "$out/findings/$t" | grep -qE '^(crash|timeout|leak|oom)-' || { echo "fuzz_$t: findings in $out/findings/$t"; exit 1; }
done
