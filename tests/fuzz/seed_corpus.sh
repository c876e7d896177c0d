#!/usr/bin/env bash
# Writes the seeds of fuzz target TARGET into folder OUT from files the
# repository holds (tests/fuzz/README.md): the committed corpus
# tests/fuzz/corpus/TARGET, the regressions, and the repository's examples.
# The ONNX seeds are zoo exports made by the CLI given as VTA.
#   tests/fuzz/seed_corpus.sh TARGET OUT [VTA]
set -euo pipefail
t=$1 c=$2 vta=${3:-}
mkdir -p "$c"
c=$(cd "$c" && pwd)
cd "$(dirname "$0")/../.."
for d in "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t"; do
  if [ -d "$d" ]; then cp -n "$d"/* "$c"/ 2>/dev/null || true; fi
done
# A conformance-vector folder packed as fuzz_program_input.h reads it.
pack() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
names = ["input.bin", "weight.bin", "out.bin", "uop.bin", "accumulator.bin", "instructions.bin", "expected_out.bin"]
out = b""
for n in names:
    b = open(f"{sys.argv[1]}/{n}", "rb").read()[:65535]
    out += struct.pack("<H", len(b)) + b
open(sys.argv[2], "wb").write(out)
PY
}
case $t in
  config) cp -n configs/*.yaml tests/configs/*.yaml "$c"/ ;;
  config_import | untrusted_text) ;;  # the committed corpus holds their seeds
  vasm) cp -n examples/*.vasm tests/data/repro-programs/*.vasm "$c"/ ;;
  sweep_spec) cp -n sweeps/examples/*.yaml "$c"/ ;;
  program | systemc)
    # The lenet5_conv1 vectors (52 KB, a second per run under the
    # sanitizers) add no instruction kind the others lack: left out, so the
    # inputs stay under -max_len=8192 (scripts/fuzz.sh).
    for v in tests/data/conformance/vectors/*/ tests/data/racy-programs/*/; do
      [ -f "$v/instructions.bin" ] || continue
      case $v in *lenet5*) continue ;; esac
      f="$c/$(basename "$(dirname "$v")")-$(basename "$v").bin"
      [ -f "$f" ] || pack "$v" "$f"
    done ;;
  onnx)
    cp -n tests/data/onnx-crashes/*.onnx "$c"/
    if [ -n "$vta" ]; then
      # dense:512,4: its layer is in the integer form (ConvInteger / MatMulInteger export)
      for m in lenet5 conv:16,8,8,16,3,1,1 dwconv:16,8,8,3,1,1 avgpool:16,8,8,2 maxpool:16,8,8,2,2,0 dense:64,32 dense:512,4; do
        f="$c/zoo-${m//[:,]/_}.onnx"
        [ -f "$f" ] || VTA_CONFIG_DIR="$(pwd)/configs" "$vta" zoo export "$m" -o "$f" >/dev/null
      done
    fi ;;
  *) echo "seed_corpus.sh: no target '$t'" >&2; exit 2 ;;
esac
