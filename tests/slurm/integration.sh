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
# shellcheck source=tests/slurm/sandbox_test.sh
source "$root/tests/slurm/sandbox_test.sh"
# Ports 20000-35999; job_submit_sandbox.sh uses 12000-15999.
sandbox_test_start "the Slurm integration test" 20000 4000
export SLURM_SANDBOX_NODES=2 SLURM_SANDBOX_GPUS=4
# A requeued job may start again after cred_expire + 1 s (the credential
# lifetime, 120 s by default); 10 s keeps the test short.
export SLURM_SANDBOX_CRED_EXPIRE=10
export ALLOT_SLURM_WORK=$work/jobs
mkdir -p "$ALLOT_SLURM_WORK"

exports=$(bash "$sandbox" start)  # an assignment: a failed start stops the script
eval "$exports"
set +e
"$test_binary" "$@"
status=$?
set -e
exit "$status"
