#!/usr/bin/env bash
# The main job: install what is missing, build, lint every bundled policy the
# way CI would, then replay the seed's eight-GPU company on the four scenarios,
# the priority-label baseline against the budget policy, and print the comparison.
# The bundled policies are dated: "today" is 2026-12-01 unless ALLOT_NOW says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build -- allot
allot=./build/cli/allot
now="${ALLOT_NOW:-2026-12-01}"
mkdir -p out

echo "== allot check --now $now policies stdlib"
"$allot" check --now "$now" policies stdlib
echo "== allot fmt --check policies stdlib"
"$allot" fmt --check policies stdlib && echo "every file is in canonical form"

echo "== allot replay: baseline labels vs budget policy, the seed's 8-GPU company, four scenarios"
"$allot" replay --now "$now" \
  --policy baseline=policies/baseline_labels.allot --policy budget=policies/saas.allot \
  --cluster examples/clusters/saas-8gpu.toml --scenario all --seed 1 \
  --json out/saas-replay.json --html out/saas-replay.html
echo "report: out/saas-replay.html (JSON: out/saas-replay.json)"
