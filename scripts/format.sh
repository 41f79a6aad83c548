#!/usr/bin/env bash
# Formats every C++ file we own with the checked-in .clang-format.
# With --check, changes nothing and fails listing the files that drift.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.cpp' '*.h' | grep -v '^build')
if [ "${1:-}" = "--check" ]; then
  drift=()
  for f in "${files[@]}"; do
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || drift+=("$f")
  done
  if [ "${#drift[@]}" -gt 0 ]; then
    echo "clang-format would change: ${drift[*]}" >&2
    echo "run: bash scripts/format.sh" >&2
    exit 1
  fi
  echo "formatting: ${#files[@]} files clean"
else
  clang-format -i "${files[@]}"
fi
