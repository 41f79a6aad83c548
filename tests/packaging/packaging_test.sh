#!/usr/bin/env bash
# The operations kit (packaging/) checked by the tools that will read it:
#   - systemd-analyze verifies the unit (with ExecStart pointing at the built
#     binary), and every option its ExecStart passes is one `allot slurm` takes;
#   - logrotate parses the rotation config in debug mode (nothing is rotated);
#   - promtool checks the alert rules and runs their unit tests.
# Usage: tests/packaging/packaging_test.sh ALLOT_BINARY
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
allot=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
missing=""
for tool in systemd-analyze logrotate promtool; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
if [ -n "$missing" ]; then
  if [ -n "${CI:-}" ]; then echo "failed: CI must check the operations kit, and$missing is missing" >&2; exit 1; fi
  echo "skipped: the operations kit's checks need$missing (scripts/setup.sh installs them)" >&2
  exit 77
fi

unit="$root/packaging/systemd/allot-slurm.service"
sed "s|/usr/local/bin/allot|$allot|" "$unit" >"$work/allot-slurm.service"
systemd-analyze verify "$work/allot-slurm.service"
help=$("$allot" slurm --help)
options=$(sed -n '/^ExecStart=/,/^[^ ]/p' "$unit" | grep -o -- '--[a-z-]*' | sort -u)
[ -n "$options" ] || { echo "no options found in the unit's ExecStart" >&2; exit 1; }
for option in $options; do
  grep -q -- " $option " <<<"$help" || { echo "the unit passes $option, which allot slurm does not take" >&2; exit 1; }
done

logrotate --debug --state "$work/logrotate.state" "$root/packaging/logrotate/allot-slurm" 2>"$work/logrotate.log" || {
  cat "$work/logrotate.log" >&2
  exit 1
}
if grep -qi "error" "$work/logrotate.log"; then cat "$work/logrotate.log" >&2; exit 1; fi

(cd "$root/packaging/prometheus" && promtool check rules allot-slurm.rules.yml && promtool test rules allot-slurm.rules.test.yml)
echo "packaging: the unit, the rotation config and the alert rules check out"
