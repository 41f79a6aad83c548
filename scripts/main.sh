#!/usr/bin/env bash
# The main job: install what is missing, build, then lint every bundled policy
# and library file the way CI would (`allot check` and `allot fmt --check`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
now="${ALLOT_NOW:-$(date +%F)}"
echo "== allot check --now $now policies stdlib"
./build/cli/allot check --now "$now" policies stdlib
echo "== allot fmt --check policies stdlib"
./build/cli/allot fmt --check policies stdlib && echo "every file is in canonical form"
