#!/usr/bin/env bash
# The generated job_submit.lua in a real slurmctld (Slurm 22.05's job_submit/lua
# plugin, Debian's build against Lua 5.1): writes it with
# `allot slurm --emit-job-submit` from tests/slurm/data/job_submit.allot and
# job_submit_map.toml, starts scripts/slurm-sandbox.sh with it beside
# slurm.conf (2 nodes x 4 fake GPUs, partitions gpu and debug, a private folder
# and port), then submits with sbatch jobs within their class's limits
# (accepted) and over each limit (refused, sbatch's error naming the class and
# the limit), and updates a job's time limit with scontrol. Jobs are held
# or begin later: nothing needs to run. Stops the sandbox on exit, also on failure.
# Usage: tests/slurm/job_submit_sandbox.sh ALLOT_BINARY
# Needs root and the Slurm packages; exits 77 (skipped) without them, and fails under CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
allot=$1
# shellcheck source=tests/slurm/sandbox_test.sh
source "$root/tests/slurm/sandbox_test.sh"
# Ports 12000-15999, away from the sandbox's default 16817 and slurm_integration's 20000-35999.
sandbox_test_start "the job_submit.lua test" 12000 1000 /usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_lua.so
export SLURM_SANDBOX_NODES=2 SLURM_SANDBOX_GPUS=4
export SLURM_SANDBOX_EXTRA="PartitionName=debug Nodes=n[1-2] DefaultTime=10 MaxTime=60 State=UP"
export SLURM_SANDBOX_JOB_SUBMIT=$work/job_submit.lua

SLURM_CONF=/nonexistent "$allot" slurm --policy "$root/tests/slurm/data/job_submit.allot" \
  --map "$root/tests/slurm/data/job_submit_map.toml" --now 2026-12-01 --emit-job-submit "$SLURM_SANDBOX_JOB_SUBMIT"
exports=$(bash "$sandbox" start)  # an assignment: a failed start stops the script
eval "$exports"

passed=0
failed=0
fail() {
  echo "FAIL: $*" >&2
  failed=$((failed + 1))
}

# accept WHAT SBATCH_ARGS...: sbatch takes the job.
accept() {
  local what=$1 out
  shift
  if out=$(sbatch -H "$@" --wrap true 2>&1); then
    passed=$((passed + 1))
  else
    fail "$what: sbatch $* was refused: $out"
  fi
}

# refuse WHAT MESSAGE SBATCH_ARGS...: sbatch refuses the job, and its error says MESSAGE.
refuse() {
  local what=$1 message=$2 out
  shift 2
  if out=$(sbatch -H "$@" --wrap true 2>&1); then
    fail "$what: sbatch $* was accepted: $out"
  elif [[ "$out" != *"allot: $message"* ]]; then
    fail "$what: sbatch $* was refused, but not saying \"allot: $message\": $out"
  else
    printf '%s\n' "$out"
    passed=$((passed + 1))
  fi
}

accept "debug within its limits" -p debug --gres=gpu:1 -t 10
accept "debug without --time: the partition's DefaultTime" -p debug --gres=gpu:1
refuse "debug, two GPUs" 'job class `debug` allows at most 1 GPU; this job asks for 2 (policy limits ' \
  -p debug --gres=gpu:2 -t 10
refuse "debug, 20 minutes" 'job class `debug` allows at most 15m of runtime; this job asks for 20m' -p debug -t 20
accept "wide, 2 nodes x 4 GPUs" -J wide.run-1 -N 2 --gpus-per-node=4 -t 60
refuse "wide, --gpus=9" 'job class `wide` allows at most 8 GPUs; this job asks for 9' -J wide.run-1 -N 2 --gpus=9 -t 60
refuse "wide, 3 nodes" 'job class `wide` allows at most 2 nodes; this job asks for 3' -J wide.run-1 -N 3 -t 60
refuse "wide, 25 hours" 'job class `wide` allows at most 1d of runtime; this job asks for 1d1h' -J wide.run-1 -t 1-01:00:00
refuse "wide without --time" 'job class `wide` allows at most 1d of runtime; this job gives no --time' -J wide.run-1
accept "eval, 4 GPUs (its deadline is not checked)" -J eval-1 --gpus=4 -t 120
accept "the first rule wins: a debug job named wide.run-1" -p debug -J wide.run-1 --gres=gpu:1 -t 5
accept "no rule matches: left alone" -J free-big -N 2 --gres=gpu:4

# Updates: scontrol's refusal is Slurm's error text (log_user is discarded in
# job_modify); the reason is in slurmctld's log.
# Pending, not held (Slurm refuses a priority for a held job itself), and not started either.
job=$(sbatch --begin=now+1hour --parsable -p debug --gres=gpu:1 -t 10 --wrap true)
if scontrol update JobId="$job" TimeLimit=5; then passed=$((passed + 1)); else fail "a shorter time limit was refused"; fi
if out=$(scontrol update JobId="$job" TimeLimit=30 2>&1); then
  fail "a time limit past the class was accepted"
else
  passed=$((passed + 1))
fi
if grep -q "allot: refused an update of job $job of user root: job class \`debug\` allows at most 15m of runtime" \
  "$SLURM_SANDBOX_DIR/log/slurmctld.log"; then
  passed=$((passed + 1))
else
  fail "slurmctld's log does not say why the update was refused (scontrol said: $out)"
fi
# The adapter's priority writes change nothing the script checks.
if scontrol update JobId="$job" Priority=5000; then passed=$((passed + 1)); else fail "a priority update was refused"; fi
limit=$(squeue -h -j "$job" -o %l)
if [ "$limit" = "5:00" ]; then passed=$((passed + 1)); else fail "job $job's time limit is $limit, not 5:00"; fi

echo "$passed passed, $failed failed"
if [ "$failed" -eq 0 ]; then status=0; fi
exit "$status"
