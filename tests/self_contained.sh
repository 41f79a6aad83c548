#!/usr/bin/env bash
# Fails if the project reads, runs or documents anything outside its own repository: a
# clone must work on its own (issue 28 item 0). Every file in the repository is searched
# for a path that climbs out of it (`../shared`, the development machine's folder beside
# the project), and the files the tests, benchmarks and README need from data/ and
# scripts/ must be here.
# Usage: tests/self_contained.sh [PROJECT_ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
status=0
# Build folders and git's own files are not the project's sources.
if found=$(grep -rnI --exclude-dir='.git' --exclude-dir='build*' --exclude-dir=out \
             --exclude=self_contained.sh -e '\.\./shared\b' -e '\.\./\.library' . ); then
  echo "self_contained: these lines name a path outside the repository:" >&2
  echo "$found" >&2
  status=1
fi
for needed in data/traces/philly_pollux/philly_pollux.csv data/traces/philly_pollux/README.md \
              scripts/slurm-sandbox.sh; do
  [ -f "$needed" ] || { echo "self_contained: $needed is missing" >&2; status=1; }
done
# Every data/ or scripts/ path the README and the docs name exists.
while read -r named; do
  [ -e "$named" ] || { echo "self_contained: the docs name $named, which is not in the repository" >&2; status=1; }
done < <(grep -ohE '\b(data|scripts)/[A-Za-z0-9_./-]+\.(csv|sh|md|toml)' README.md docs/*.md | sort -u)
[ "$status" -eq 0 ] && echo "self_contained: nothing outside the repository is named"
exit "$status"
