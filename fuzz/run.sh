#!/usr/bin/env bash
# Fuzzes the policy front end with libFuzzer. Usage: fuzz/run.sh BUILD_DIR SECONDS
# BUILD_DIR was configured with -DALLOT_FUZZ=ON and clang-19 (see scripts/test.sh).
# The corpus lives in BUILD_DIR/fuzz-corpus and grows across runs; it is seeded
# from every *.allot in the repository. Exits non-zero on any crash, leak,
# timeout (-timeout=10) or failed assertion; the input is saved in BUILD_DIR/fuzz-artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -ne 2 ]; then
  echo "usage: fuzz/run.sh BUILD_DIR SECONDS" >&2
  exit 2
fi
build="$1"
seconds="$2"
fuzzer="$build/fuzz/fuzz_front_end"
corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
dictionary="$build/fuzz/allot.dict"
if [ ! -x "$fuzzer" ]; then
  echo "fuzz/run.sh: $fuzzer is missing; build $build with -DALLOT_FUZZ=ON" >&2
  exit 2
fi
mkdir -p "$corpus" "$artifacts"

# Seeds: every policy, library and test case in the repository (named by content,
# so re-seeding adds nothing twice).
seeds=0
while IFS= read -r -d '' file; do
  cp "$file" "$corpus/seed-$(sha1sum <"$file" | cut -c1-16)"
  seeds=$((seeds + 1))
done < <(find . \( -path './build*' -o -path './.git' \) -prune -o -name '*.allot' -type f -print0)

# A dictionary of the grammar's keywords and punctuation, plus one literal of
# each kind, so mutations produce tokens the parser knows.
{
  grep -oE "'[A-Za-z_]+'|'[-+*/%^<>=!(){}.,:]+'" grammar/Allot.g4 | sort -u | sed -e "s/^'/\"/" -e "s/'\$/\"/"
  printf '%s\n' '"2026-12-31"' '"15m"' '"40%"' '"1.5"' '"\"owner@example.com\""' '"\x0a"' '"// c\x0a"'
} >"$dictionary"

echo "fuzz: $seeds seed files, corpus $corpus, ${seconds}s"
"$fuzzer" -max_len=4096 -timeout=10 -max_total_time="$seconds" -print_final_stats=1 \
  -dict="$dictionary" -artifact_prefix="$artifacts/" "$corpus"
