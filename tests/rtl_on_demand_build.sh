#!/usr/bin/env bash
# Fixture of tests/test_rtl_on_demand.cpp: two processes build the same RTL
# model on demand at once (`vta rtl build`) into an emptied cache folder. Both
# must succeed and the model must be built once: one says "built in", the
# other waited and found it in the cache, and the cache records one build.
# Usage: rtl_on_demand_build.sh VTA CACHE_DIR CONFIG
set -euo pipefail
vta=$1 cache=$2 config=$3
rm -rf "$cache"
mkdir -p "$cache"
out=$cache/../rtl-cache-build
"$vta" rtl build --cache "$cache" -c "$config" --set gemm.pipeline_depth=4 --set alu.latency=6 --set buffers.acc=2KiB -j 2 >"$out.a" 2>&1 &
a=$!
"$vta" rtl build --cache "$cache" -c "$config" --set gemm.pipeline_depth=4 --set alu.latency=6 --set buffers.acc=2KiB -j 2 >"$out.b" 2>&1 &
b=$!
status=0
wait "$a" || { echo "first build failed:"; cat "$out.a"; status=1; }
wait "$b" || { echo "second build failed:"; cat "$out.b"; status=1; }
[ "$status" = 0 ] || exit 1
cat "$out.a" "$out.b"
builds=$(wc -l <"$cache/build-times")
[ "$builds" = 1 ] || { echo "the model was built $builds times, not once"; exit 1; }
[ "$(cat "$out.a" "$out.b" | grep -c '(built in ')" = 1 ] || { echo "not exactly one 'built in' line"; exit 1; }
[ "$(cat "$out.a" "$out.b" | grep -c '(already in the cache)')" = 1 ] || { echo "not exactly one 'already in the cache' line"; exit 1; }
"$vta" rtl list --cache "$cache" | grep -q "^1 model in " || { echo "vta rtl list does not show one model"; exit 1; }
# clean: the model and a killed build's leftover folder go; a copy is cleaned, the fixture's cache stays.
rm -rf "$cache.clean" && cp -r "$cache" "$cache.clean" && mkdir "$cache.clean/.tmp-0123456789abcdef-XXXXXX"
"$vta" rtl clean --cache "$cache.clean" | grep -q "^removed 2 entries from " || { echo "vta rtl clean did not remove 2 entries"; exit 1; }
"$vta" rtl list --cache "$cache.clean" | grep -q "^0 models in " || { echo "the cleaned cache is not empty"; exit 1; }
rm -rf "$cache.clean"
echo "one build, two processes: ok"
