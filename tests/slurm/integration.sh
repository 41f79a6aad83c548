#!/usr/bin/env bash
# Runs the adapter's integration test against a real Slurm 22.05 started here
# (scripts/slurm-sandbox.sh: 2 nodes x 4 fake GPUs, a private state
# folder and port) and stopped on exit, also when the test fails.
# Usage: tests/slurm/integration.sh TEST_BINARY [catch2 arguments...]
# Needs root and the Slurm packages (scripts/setup.sh installs them); exits 77,
# which CTest reports as skipped, without them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
test_binary=$1
shift
sandbox=$root/scripts/slurm-sandbox.sh

if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null 2>&1 || [ ! -f "$sandbox" ]; then
  # On a developer's machine without them the test is skipped; in CI (where
  # they must be there) a skip would hide that the real Slurm was never tested.
  if [ -n "${CI:-}" ]; then
    echo "failed: CI must run the Slurm integration test, which needs root, the Slurm packages and $sandbox" >&2
    exit 1
  fi
  echo "skipped: the Slurm integration test needs root, the Slurm packages and $sandbox" >&2
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/allot-slurm-test.XXXXXX")
chmod 0755 "$work"
export SLURM_SANDBOX_DIR=$work/sandbox
# Away from the sandbox's default 16817 and from other runs: node i listens on PORT+i.
export SLURM_SANDBOX_PORT=$((20000 + ($$ % 4000) * 4))
export SLURM_SANDBOX_NODES=2 SLURM_SANDBOX_GPUS=4
# A requeued job may start again after cred_expire + 1 s (the credential
# lifetime, 120 s by default); 10 s keeps the test short.
export SLURM_SANDBOX_CRED_EXPIRE=10
export ALLOT_SLURM_WORK=$work/jobs
mkdir -p "$ALLOT_SLURM_WORK"

status=1
finish() {
  bash "$sandbox" stop >/dev/null 2>&1 || true
  if [ "$status" -eq 0 ]; then
    rm -rf "$work"
  else
    echo "integration test failed; adapter logs, audit and Slurm logs are kept in $work" >&2
  fi
}
trap finish EXIT

eval "$(bash "$sandbox" start)"
set +e
"$test_binary" "$@"
status=$?
set -e
exit "$status"
