#!/usr/bin/env bash
# no_llvm.sh BINARY: fails if BINARY links LLVM -- a libLLVM among the shared
# libraries it loads (ldd), or a single llvm:: symbol in it, defined or needed
# (nm, static and dynamic tables). ctest runs it on allot_frontend_tests, which
# links allot_frontend alone, so the front end stays free of LLVM; and on `allot`
# (which links it) to show the check sees LLVM where it is (tests/CMakeLists.txt).
set -euo pipefail
binary="${1:?usage: no_llvm.sh BINARY}"
[ -x "$binary" ] || { echo "no_llvm: $binary is not an executable" >&2; exit 2; }
loaded="$(ldd "$binary")"
if grep -i 'libLLVM' <<<"$loaded"; then
  echo "no_llvm: $binary loads LLVM" >&2
  exit 1
fi
symbols="$( (nm -C "$binary" 2>/dev/null || true; nm -DC "$binary" 2>/dev/null || true) | grep -c 'llvm::' || true)"
if [ "$symbols" -gt 0 ]; then
  echo "no_llvm: $binary holds LLVM ($symbols llvm:: symbols)" >&2
  exit 1
fi
echo "no_llvm: $binary neither loads LLVM nor holds an llvm:: symbol"
