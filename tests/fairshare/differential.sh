#!/usr/bin/env bash
# Builds Slurm's fair-share harness (build_harness.sh) and compares Allot's
# Fair Tree and classic fair share with it on seeded random trees.
# Usage: tests/fairshare/differential.sh DIFFERENTIAL_BINARY HARNESS_DIR [ALLOT_BINARY]
# With ALLOT_BINARY, trees are also written as policies and `allot shares`
# must print Slurm's numbers. ALLOT_FAIRSHARE_TREES (default 1000),
# ALLOT_FAIRSHARE_POLICIES (default 100) and ALLOT_FAIRSHARE_SEED (default 1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$1
dir=$2
allot=${3:-}
harness=$(bash "$here/build_harness.sh" "$dir")
extra=()
if [ -n "$allot" ]; then extra=(--allot "$allot" --policies "${ALLOT_FAIRSHARE_POLICIES:-100}"); fi
exec "$binary" --harness "$harness" --conf "$dir/slurm.conf" \
  --trees "${ALLOT_FAIRSHARE_TREES:-1000}" --seed "${ALLOT_FAIRSHARE_SEED:-1}" "${extra[@]}"
