#!/usr/bin/env bash
# allot serve's progress metrics: the demo under saas with a progress rule on
# `train` (its pretend executor never reports progress, so every training job
# stalls 30 minutes after it starts). Through the real binary and its
# /metrics: allot_serve_stalled_jobs{program} must count, program by program,
# the running jobs /jobs shows with a stalled_since, and
# allot_serve_without_progress_units{program} must match /shares's
# without_progress; both must be non-zero for some program. The plain demo
# (no rule) must show both families at zero.
# Usage: progress_metrics_test.sh ALLOT      (exit 77: curl or python3 missing)
set -euo pipefail
allot="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tests/service/serve_support.sh"
require progress_metrics_test curl python3
sed 's/^    checkpoint every 30m$/    checkpoint every 30m\n    progress every 20m after 10m/' \
  "$root/policies/saas.allot" > "$work/saas_progress.allot"
grep -q 'progress every 20m after 10m' "$work/saas_progress.allot" ||
  { echo "progress_metrics_test: could not add the rule to saas.allot"; exit 1; }

# Reads /metrics, /jobs?phase=running and /shares, and compares them by program.
# Exits 0 when they agree (and, with "nonzero", some program has both > 0),
# 3 when they disagree (a cycle may have run between the reads: read again).
compare() {
  local want="$1"
  curl -sf "http://127.0.0.1:$port/metrics" > "$work/metrics.txt"
  curl -sf "http://127.0.0.1:$port/jobs?phase=running&limit=1000" > "$work/running.json"
  curl -sf "http://127.0.0.1:$port/shares" > "$work/shares.json"
  curl -sf "http://127.0.0.1:$port/metrics" > "$work/metrics2.txt"
  python3 - "$work" "$want" <<'PY'
import json, re, sys
work, want = sys.argv[1], sys.argv[2]
def families(name):
    values = {}
    for line in open(f"{work}/{name}"):
        found = re.match(r'^(allot_serve_stalled_jobs|allot_serve_without_progress_units)\{program="([^"]*)"\} (\S+)$', line)
        if found:
            values[(found.group(1), found.group(2))] = float(found.group(3))
    return values
before, after = families("metrics.txt"), families("metrics2.txt")
if before != after:
    sys.exit(3)  # a cycle ran between the reads
stalled = {program: value for (family, program), value in before.items() if family == "allot_serve_stalled_jobs"}
without = {program: value for (family, program), value in before.items()
           if family == "allot_serve_without_progress_units"}
if not stalled or set(stalled) != set(without):
    print(f"progress_metrics_test: the families name different programs: {sorted(stalled)} {sorted(without)}")
    sys.exit(1)
counted = {program: 0 for program in stalled}
for job in json.load(open(f"{work}/running.json"))["jobs"]:
    if job.get("stalled_since") is not None:
        program = job["job"]["account"].split("/")[0]
        counted[program] = counted.get(program, 0) + 1
shares = {account["path"]: account.get("without_progress") or 0.0
          for account in json.load(open(f"{work}/shares.json"))["accounts"] if "/" not in account["path"]}
for program in sorted(set(counted) | set(stalled)):
    if stalled.get(program, -1) != counted.get(program, 0):
        print(f"progress_metrics_test: {program}: {stalled.get(program)} stalled in /metrics, {counted.get(program)} in /jobs")
        sys.exit(3)
    if abs(without.get(program, -1) - shares.get(program, 0.0)) > 1e-6 * max(1.0, shares.get(program, 0.0)):
        print(f"progress_metrics_test: {program}: {without.get(program)} without progress in /metrics, "
              f"{shares.get(program)} in /shares")
        sys.exit(3)
print("progress_metrics_test: " + ", ".join(f"{p} {int(stalled[p])} stalled, {without[p]:.2f} held without progress"
                                            for p in sorted(stalled)))
if want == "nonzero" and not any(stalled[p] > 0 and without[p] > 0 for p in stalled):
    sys.exit(4)
if want == "zero" and any(stalled[p] != 0 or without[p] != 0 for p in stalled):
    print("progress_metrics_test: a policy without a progress rule shows stalled jobs")
    sys.exit(1)
PY
}

# Retries while a cycle runs between the reads, or (nonzero) until a stalled job's time is charged.
expect() {
  local want="$1" status=0
  for _ in $(seq 40); do
    status=0
    compare "$want" || status=$?
    case "$status" in
      0) return 0 ;;
      3|4) sleep 0.5 ;;
      *) exit 1 ;;
    esac
  done
  echo "progress_metrics_test: no agreement ($want) after 40 reads (last status $status)"; exit 1
}

serve_start "$work/rule.log" --demo --policy "$work/saas_progress.allot" --speed 3000 --interval 1s \
  --listen 127.0.0.1:0 --db "$work/rule.db"
sleep 4
expect nonzero
kill -TERM "${pids[-1]}"; wait "${pids[-1]}" || true; pids=()

serve_start "$work/plain.log" --demo --speed 3000 --interval 1s --listen 127.0.0.1:0 --db "$work/plain.db"
sleep 3
expect zero
