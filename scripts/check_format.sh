#!/bin/bash
# Checks that every hand-written C++ file of the repository is formatted by
# .clang-format (the generated files under */generated/ are the generator's).
# Usage: scripts/check_format.sh [--fix]   (run from anywhere inside the clone)
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
fix=0
[ "${1:-}" = --fix ] && fix=1
tool=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$tool" ]; then
  echo "check_format.sh: clang-format is not installed (Debian: apt-get install clang-format-14)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cc' '*.hpp' | grep -v '/generated/')
if [ $fix = 1 ]; then
  "$tool" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$tool" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  printf '%s\n' "${bad[@]}" | sed 's/^/not formatted: /' >&2
  echo "check_format.sh: ${#bad[@]} of ${#files[@]} files differ from .clang-format; scripts/check_format.sh --fix formats them" >&2
  exit 1
fi
echo "check_format.sh: ${#files[@]} files formatted as .clang-format says"
