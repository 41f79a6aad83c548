#!/usr/bin/env bash
# `allot serve` killed with SIGKILL at random moments while one client submits
# jobs as fast as it can and another reports the started ones finished; after
# each kill the server restarts on the same database. At the end every
# submission and every event the server acknowledged (201 or 200) must be
# there, and no job may have been charged twice for any second (the ledger's
# intervals of one job never overlap).
# Usage: crash_test.sh ALLOT [ROUNDS]     (exit 77: curl or sqlite3 missing)
set -euo pipefail
allot="$1"
rounds="${2:-${ALLOT_CRASH_ROUNDS:-6}}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tests/service/serve_support.sh"
require crash_test curl sqlite3
make_token "$work/token"
token="$(cat "$work/token")"
: > "$work/submitted"
: > "$work/finished"
pid=""

start_server() {
  serve_start "$work/server.$1.log" --policy "$root/policies/saas.allot" \
    --cluster "$root/examples/clusters/saas-8gpu.toml" --db "$work/serve.db" --token-file "$work/token" \
    --listen 127.0.0.1:0 --interval 1s --charge-every 1s --durability process-crash --rate-limit 0 --read-rate-limit 0
  pid="${pids[-1]}"
}

# Submits until the server goes away; records each id it acknowledged.
submitter() {
  local round="$1" i=0 code
  while true; do
    i=$((i + 1))
    code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST -H "Authorization: Bearer $token" \
      -d "{\"id\":\"r$round-$i\",\"account\":\"product\",\"class\":\"train\",\"gpus_per_node\":1}" \
      "http://127.0.0.1:$port/jobs" || true)"
    case "$code" in
      201) echo "r$round-$i" >> "$work/submitted" ;;
      000) return 0 ;;
      *) echo "crash_test: submission r$round-$i answered $code"; return 1 ;;
    esac
  done
}

# Reads the feed and reports started jobs finished; records each acknowledged finish.
finisher() {
  local since=0 feed id code
  while true; do
    feed="$(curl -s --max-time 5 "http://127.0.0.1:$port/decisions?since=$since")" || return 0
    [ -n "$feed" ] || return 0
    since="$(printf '%s\n' "$feed" | sed -n 's/.*"next_since": \([0-9]*\).*/\1/p')"
    [ -n "$since" ] || return 0
    for id in $(printf '%s\n' "$feed" | grep '"kind":"start"' | sed 's/.*"job":"\([^"]*\)".*/\1/'); do
      code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST -H "Authorization: Bearer $token" \
        -d "{\"kind\":\"finished\",\"job\":\"$id\"}" "http://127.0.0.1:$port/events" || true)"
      case "$code" in
        200) echo "$id" >> "$work/finished" ;;
        000) return 0 ;;
        409) ;;  # finished already, or requeued since the feed said it started
        *) echo "crash_test: finishing $id answered $code"; return 1 ;;
      esac
    done
    sleep 0.2
  done
}

for round in $(seq "$rounds"); do
  start_server "$round"
  submitter "$round" & submitting=$!
  finisher & finishing=$!
  # Kill somewhere in 0.5-2.5 s: inside a cycle, a commit or a request, wherever it falls.
  sleep "$(( RANDOM % 3 )).$(( RANDOM % 10 ))5"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  wait "$submitting"
  wait "$finishing"
done

start_server final
lost=0
while read -r id; do
  code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/jobs/$id")"
  if [ "$code" != 200 ]; then echo "crash_test: acknowledged submission $id is lost ($code)"; lost=$((lost + 1)); fi
done < "$work/submitted"
while read -r id; do
  phase="$(curl -s "http://127.0.0.1:$port/jobs/$id" | sed -n 's/^  "phase": "\([a-z]*\)".*/\1/p')"
  if [ "$phase" != finished ]; then echo "crash_test: acknowledged finish of $id is lost ($phase)"; lost=$((lost + 1)); fi
done < "$work/finished"
overlaps="$(sqlite3 "$work/serve.db" "SELECT COUNT(*) FROM charges a JOIN charges b ON a.job_id = b.job_id
  AND a.rowid < b.rowid AND a.charged_from < b.charged_until AND b.charged_from < a.charged_until")"
charges="$(sqlite3 "$work/serve.db" "SELECT COUNT(*) FROM charges")"
submitted="$(wc -l < "$work/submitted")"
finished="$(wc -l < "$work/finished")"
echo "crash_test: $rounds kills; $submitted submissions and $finished finishes acknowledged, $lost lost;" \
  "$charges charges, $overlaps overlapping"
[ "$submitted" -gt 0 ] || { echo "crash_test: no submission was acknowledged"; exit 1; }
[ "$finished" -gt 0 ] || { echo "crash_test: no finish was acknowledged"; exit 1; }
[ "$charges" -gt 0 ] || { echo "crash_test: nothing was charged"; exit 1; }
[ "$lost" -eq 0 ] && [ "$overlaps" -eq 0 ]
