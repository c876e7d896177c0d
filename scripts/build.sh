#!/usr/bin/env bash
# Configures and builds vta-lab with a CMake preset (default: dev).
# Usage: scripts/build.sh [dev|ci]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-dev}"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
