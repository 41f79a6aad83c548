# Sourced by the tests that run against a real Slurm (integration.sh,
# job_submit_sandbox.sh) after `set -euo pipefail` and setting `root`.
#
# sandbox_test_start WHAT PORT_BASE PORT_SPAN [FILE...]: exits 77, which CTest
# reports as skipped, without root, slurmctld, scripts/slurm-sandbox.sh or one
# of FILE..., and 1 under CI, where a skip would hide that the real Slurm was
# never tested. Otherwise sets `sandbox` (the script) and `work` (a new folder),
# exports SLURM_SANDBOX_DIR and SLURM_SANDBOX_PORT (PORT_BASE plus up to
# PORT_SPAN * 4 by the process id, so parallel runs and tests with other bases
# do not collide: node i listens on PORT+i), and on exit stops the sandbox and
# removes `work`, which is kept when `status` is not 0.
sandbox_test_start() {
  local what=$1 base=$2 span=$3 needed
  shift 3
  sandbox=$root/scripts/slurm-sandbox.sh
  local missing=""
  [ "$(id -u)" -eq 0 ] && command -v slurmctld >/dev/null 2>&1 || missing=1
  for needed in "$sandbox" "$@"; do [ -f "$needed" ] || missing=1; done
  if [ -n "$missing" ]; then
    if [ -n "${CI:-}" ]; then
      echo "failed: CI must run $what, which needs root, the Slurm packages and $sandbox $*" >&2
      exit 1
    fi
    echo "skipped: $what needs root, the Slurm packages and $sandbox $*" >&2
    exit 77
  fi
  work=$(mktemp -d "${TMPDIR:-/tmp}/allot-slurm-test.XXXXXX")
  chmod 0755 "$work"
  export SLURM_SANDBOX_DIR=$work/sandbox
  export SLURM_SANDBOX_PORT=$((base + ($$ % span) * 4))
  status=1
  sandbox_test_what=$what
  trap sandbox_test_finish EXIT
}

sandbox_test_finish() {
  bash "$sandbox" stop >/dev/null 2>&1 || true
  if [ "$status" -eq 0 ]; then
    rm -rf "$work"
  else
    echo "$sandbox_test_what failed; its files and Slurm's logs are kept in $work" >&2
  fi
}
