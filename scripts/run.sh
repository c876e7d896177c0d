#!/usr/bin/env bash
# The main job: set up, build, compile ResNet-18 for the default design
# (vta-1x16x16), simulate it on the SystemC cycle model, check the output
# bit-exactly against the integer reference and print the per-layer cycle
# report. Extra arguments go to `vta run` and replace the defaults they name
# (e.g. --model lenet5, --onnx net.onnx, --backend golden, --config
# vta-1x32x32, --report-csv out.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p build
echo "run.sh: building (log in build/build-dev.log) ..."
if ! bash scripts/build.sh dev > build/build-dev.log 2>&1; then
  cat build/build-dev.log
  exit 1
fi
given() {  # given OPTION... : true when any of these options is among the arguments
  local a o
  for a in "${ARGS[@]}"; do
    for o in "$@"; do
      [[ "$a" == "$o" || "$a" == "$o="* ]] && return 0
    done
  done
  return 1
}
ARGS=("$@")
defaults=()
given --model --onnx || defaults+=(--model resnet18)
given -c --config || defaults+=(--config vta-1x16x16)
given -b --backend || defaults+=(--backend systemc)
exec ./build/dev/apps/vta run "${defaults[@]}" "${ARGS[@]}"
