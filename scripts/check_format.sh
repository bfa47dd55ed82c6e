#!/usr/bin/env bash
# Fails when a C++ file of the repository differs from what clang-format (.clang-format)
# makes of it, listing the files. `scripts/check_format.sh --fix` rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' '*.inc' '*.def' 2>/dev/null || find src include tests bench examples -name '*.h' -o -name '*.cpp' -o -name '*.cu')
if [ "${1:-}" = "--fix" ]; then
  echo "$files" | xargs clang-format -i
  exit 0
fi
bad=()
for f in $files; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} file(s) not clang-format clean (run scripts/check_format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: $(echo "$files" | wc -l) files clean"
