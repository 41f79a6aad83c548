#!/usr/bin/env bash
# Fuzzes the input readers (fuzz_inputs.cpp) with libFuzzer. Usage:
#   fuzz/run_inputs.sh BUILD_DIR SECONDS
# The first byte of an input picks the reader (0 snapshot, 1 inventory, 2 trace
# CSV, 3 replay map, 4 Slurm map, 5 sacctmgr dump, 6 ledger, 7 a POST /jobs
# body of allot serve, 8 a policy test file). The committed seed
# corpus is fuzz/corpus/inputs; the example files of the repository are added
# with their reader's byte. The corpus grows in BUILD_DIR/fuzz-inputs-corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -ne 2 ]; then
  echo "usage: fuzz/run_inputs.sh BUILD_DIR SECONDS" >&2
  exit 2
fi
build="$1"
seconds="$2"
fuzzer="$build/fuzz/fuzz_inputs"
corpus="$build/fuzz-inputs-corpus"
artifacts="$build/fuzz-inputs-artifacts"
if [ ! -x "$fuzzer" ]; then
  echo "fuzz/run_inputs.sh: $fuzzer is missing; build $build with -DALLOT_FUZZ=ON" >&2
  exit 2
fi
mkdir -p "$corpus" "$artifacts"
cp fuzz/corpus/inputs/* "$corpus/"

# seed BYTE FILE: the file's first 4 KiB behind its reader's byte, named by content.
seed() {
  local out
  out=$(mktemp)
  { printf "\\$(printf '%03o' "$1")"; head -c 4096 "$2"; } >"$out"
  mv "$out" "$corpus/seed-$1-$(basename "$2")"
}
for f in examples/states/*.toml tests/runtime/data/*.toml; do [ -f "$f" ] && seed 0 "$f"; done
for f in examples/clusters/*.toml; do seed 1 "$f"; done
for f in data/traces/*/*.csv; do [ -f "$f" ] && seed 2 "$f"; done
for f in examples/workloads/*.toml; do seed 3 "$f"; done
for f in examples/slurm/*.toml tests/slurm/data/*.toml; do [ -f "$f" ] && seed 4 "$f"; done
for f in tests/golden/import/*.dump; do seed 5 "$f"; done
for f in fuzz/corpus/serve/*.json; do seed 7 "$f"; done
for f in policies/*_test.toml; do seed 8 "$f"; done

echo "fuzz inputs: corpus $corpus, ${seconds}s"
"$fuzzer" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$corpus"
