#!/usr/bin/env bash
# Resource table of the RTL core per preset (yosys synth_xilinx, 7-series):
# LUT, FF, DSP48E1, BRAM (RAMB36E1 equivalents) and LUT-RAM cells. Writes the
# Markdown table to stdout; the later resource model is calibrated on it.
#   scripts/rtl_resources.sh [PRESET...]   (default: every preset the RTL supports)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(vta-1x16x16 vta-4x16x16 vta-1x32x32)
echo "| preset | LUT | FF | DSP48E1 | BRAM36 | LUT-RAM | yosys s |"
echo "|---|---|---|---|---|---|---|"
for p in "${presets[@]}"; do
  read -r name lut ff dsp bram lutram secs < <("$root/scripts/rtl_synth.sh" "$p")
  echo "| $name | $lut | $ff | $dsp | $bram | $lutram | $secs |"
done
