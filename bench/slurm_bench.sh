#!/usr/bin/env bash
# Measures the Slurm adapter's reconcile pass (BM_SlurmPass* in slurm_bench.cpp)
# against a real Slurm holding 1,000 running and 5,000 pending jobs.
#
# The sandbox (scripts/slurm-sandbox.sh) gets 16 nodes x 64 fake GPUs
# and 128 CPUs each. 1,000 one-GPU jobs of class `long` (protected, so the pass
# has no victims to signal) run `sleep`; each is a real slurmstepd, about 7 MB
# apiece. Then 5,000 jobs asking for a whole node (64 GPUs) wait: no node is
# free, so they stay pending and the cycle ranks and tries to place all of them.
# Accounts rotate over alpha, beta and gamma (tests/slurm/data/three_teams.allot).
#
# Usage: bench/slurm_bench.sh [BUILD_DIR]   (default build-release; needs root)
#   SLURM_BENCH_RUNNING (default 1000) and SLURM_BENCH_PENDING (default 5000) change the
#   counts; the sandbox's MaxJobCount is raised to fit (Slurm's default is 10,000).
#   SLURM_BENCH_FILTER (default BM_SlurmPass) picks the benchmarks; SLURM_BENCH_REPETITIONS
#   (default 1) repeats each (Google Benchmark then adds mean, median and stddev rows).
# The sandbox is stopped on exit, also on failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-release}
sandbox=$root/scripts/slurm-sandbox.sh
bench=$build/bench/allot_bench
[ -x "$bench" ] || { echo "no $bench; build allot_bench first" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/allot-slurm-bench.XXXXXX")
chmod 0755 "$work"
export SLURM_SANDBOX_DIR=$work/sandbox SLURM_SANDBOX_PORT=$((30000 + ($$ % 1000) * 20))
running=${SLURM_BENCH_RUNNING:-1000} pending=${SLURM_BENCH_PENDING:-5000}
export SLURM_SANDBOX_NODES=16 SLURM_SANDBOX_GPUS=64 SLURM_SANDBOX_CPUS=128 SLURM_SANDBOX_TIMEOUT=120
export SLURM_SANDBOX_EXTRA="MaxJobCount=$((running + pending + 10000))"
trap 'bash "$sandbox" stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
# (An assignment, so a failed start stops the script: `eval "$(...)"` alone would not.)
exports=$(bash "$sandbox" start)
eval "$exports"
mkdir -p "$work/jobs"

# sbatch NAME GPUS COUNT: submits COUNT jobs, four sbatch at a time, retrying
# when slurmctld is busy.
submit() {
  local name=$1 gpus=$2 count=$3
  seq 0 $((count - 1)) | xargs -P 4 -I{} sh -c '
    accounts="alpha beta gamma"; i={}; account=$(echo $accounts | cut -d" " -f$((i % 3 + 1)))
    for try in 1 2 3 4 5; do
      sbatch --quiet --account=$account --gres=gpu:'"$gpus"' --job-name='"$name"' --chdir='"$work/jobs"' \
        --output=/dev/null --wrap="sleep 7200" && exit 0
      sleep 1
    done
    exit 1'
}

wait_for() {  # DESCRIPTION SECONDS COMMAND...: polls until COMMAND succeeds
  local what=$1 limit=$2 deadline
  shift 2
  deadline=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "timed out waiting for $what" >&2; exit 1; }
    sleep 1
  done
}
count_state() { squeue -h -t "$1" -o %i | wc -l; }
running_is() { [ "$(count_state R)" -eq "$1" ]; }
pending_is() { [ "$(count_state PD)" -eq "$1" ]; }

t0=$SECONDS
submit long-run 1 "$running"
wait_for "$running running jobs" 900 running_is "$running"
echo "$running jobs running after $((SECONDS - t0)) s" >&2
submit work-node 64 "$pending"
wait_for "$pending pending jobs" $((900 + pending / 20)) pending_is "$pending"
echo "$pending jobs pending after $((SECONDS - t0)) s" >&2

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The adapters' state files go to the work folder, removed on exit.
TMPDIR=$work "$bench" --benchmark_filter="${SLURM_BENCH_FILTER:-BM_SlurmPass}" \
  --benchmark_repetitions="${SLURM_BENCH_REPETITIONS:-1}" --benchmark_counters_tabular=true
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "jobs: $(count_state R) running, $(count_state PD) pending"
