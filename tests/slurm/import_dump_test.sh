#!/usr/bin/env bash
# `allot import slurm` on a dump that a real sacctmgr writes now: starts
# slurmdbd (tests/slurm/sacctmgr_dump.sh), builds the site's tree with
# sacctmgr, dumps it, and checks that
#   1. the committed tests/golden/import/sandbox.dump is what sacctmgr writes
#      for that tree (so the golden tests run on real output, not a guess),
#   2. the fresh dump imports to tests/golden/import/sandbox.allot.golden,
#   3. with owners and review dates the policy passes `allot check`.
# Usage: tests/slurm/import_dump_test.sh ALLOT_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/../golden/import
allot=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/allot-import-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
bash "$here/sacctmgr_dump.sh" "$work/sandbox.dump"
diff -u "$golden/sandbox.dump" "$work/sandbox.dump" ||
  { echo "import_dump_test: sacctmgr's dump differs from tests/golden/import/sandbox.dump" >&2; exit 1; }
"$allot" import slurm "$work/sandbox.dump" >"$work/sandbox.allot" 2>"$work/notes.txt"
diff -u "$golden/sandbox.allot.golden" "$work/sandbox.allot" ||
  { echo "import_dump_test: the fresh dump does not import to tests/golden/import/sandbox.allot.golden" >&2; exit 1; }
cat "$work/notes.txt"
"$allot" import slurm "$work/sandbox.dump" --owner hpc@example.edu --review 2027-03-31 --hypothesis "shared GPUs cost less per paper" --output "$work/site.allot"
"$allot" check --now 2026-12-01 "$work/site.allot"
echo "import_dump_test: passed"
