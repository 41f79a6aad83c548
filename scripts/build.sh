#!/usr/bin/env bash
# Configures and builds one build folder.
# Usage: scripts/build.sh DIR [cmake options...] [-- target...]
# Shared by main.sh and test.sh so every build is made the same way.
# Release (-O3) unless ALLOT_BUILD_TYPE says otherwise: the build users run, the
# one the benchmarks measure, and the one CI tests, so a warning GCC gives only
# at -O3 fails CI (every target compiles with -Werror).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$1"; shift
options=(); targets=()
while [ "$#" -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; targets=("$@"); break; fi
  options+=("$1"); shift
done
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
export CCACHE_BASEDIR="$PWD"
# Builds with debug info (-g: the fuzz, ASan and TSan builds) hash the working
# directory unless told not to; every land builds in a new clone, so without
# this they never hit the cache.
export CCACHE_NOHASHDIR=1
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="${ALLOT_BUILD_TYPE:-Release}" "${launcher[@]}" "${options[@]}" >/dev/null
if [ "${#targets[@]}" -gt 0 ]; then
  cmake --build "$dir" --target "${targets[@]}"
else
  cmake --build "$dir"
fi
