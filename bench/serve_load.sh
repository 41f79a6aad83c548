#!/usr/bin/env bash
# allot serve under load, measured with wrk on loopback (docs/PERFORMANCE.md,
# "allot serve under load"). Three phases on one server (the saas policy, its
# 8-GPU cluster, a cycle every second, rate limits off):
#   1. fill:  wrk submits jobs as fast as it can until the queue holds QUEUE jobs
#             (100,000; --quick: 2,000);
#   1b. reads alone: 100-job pages with 1, 4 and 16 connections while cycles run;
#   2. mixed: for DURATION (20 s; --quick: 3 s), one wrk submits, another reads
#             100-job pages of the queue, and a loop swaps the policy every 2 s,
#             while cycles rank the whole queue;
#   3. check: every submission wrk saw acknowledged (201) is in the database.
# wrk, the server and the swap loop share the machine's cores (two here): the
# numbers are for all of them together on one machine, not for the server alone.
# Usage: bench/serve_load.sh ALLOT [--quick] [--durability power-loss|process-crash] [--readers N]
#   --readers: the connections reading pages in the mixed phase (16)
# Exit 77 when wrk, curl or sqlite3 is missing.
set -euo pipefail
allot="$1"; shift
quick=""; durability="power-loss"; readers=16
while [ "$#" -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --durability) durability="$2"; shift ;;
    --readers) readers="$2"; shift ;;
    *) echo "serve_load: unknown option $1"; exit 2 ;;
  esac
  shift
done
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/tests/service/serve_support.sh"
require serve_load wrk curl sqlite3
queue=100000; duration=20
if [ -n "$quick" ]; then queue=2000; duration=3; fi
make_token "$work/token"
export ALLOT_TOKEN="$(cat "$work/token")"
serve_start "$work/server.log" --policy "$root/policies/saas.allot" \
  --cluster "$root/examples/clusters/saas-8gpu.toml" --db "$work/load.db" --token-file "$work/token" \
  --listen 127.0.0.1:0 --interval 1s --rate-limit 0 --read-rate-limit 0 --durability "$durability"
url="http://127.0.0.1:$port"
acknowledged=0
connections=0  # every connection wrk opened: each may end with one request in flight

# Runs wrk; prints its summary; adds its acknowledged submissions to the count.
run_wrk() {
  local name="$1"; shift
  ALLOT_LOAD_RUN="$name" wrk --latency "$@" > "$work/$name.out" 2>&1
  local got
  got="$(sed -n 's/^acknowledged \([0-9]*\)/\1/p' "$work/$name.out")"
  [ -n "$got" ] && acknowledged=$((acknowledged + got))
  true
}
field() { sed -n "s/^$2 \\(.*\\)/\\1/p" "$work/$1.out"; }
rate() { sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p' "$work/$1.out"; }

# 1. Fill.
round=0
fill_start=$SECONDS
while [ "$acknowledged" -lt "$queue" ]; do
  round=$((round + 1))
  connections=$((connections + 64))
  run_wrk "fill$round" -t2 -c64 -d"$([ -n "$quick" ] && echo 2 || echo 10)"s -s "$root/bench/serve/submit.lua" "$url"
  echo "serve_load: fill round $round: $(rate "fill$round") submissions/s, p50 $(field "fill$round" p50_ms) ms," \
    "p99 $(field "fill$round" p99_ms) ms; $acknowledged acknowledged"
  [ "$round" -lt 100 ] || { echo "serve_load: the queue does not fill"; exit 1; }
done
echo "serve_load: filled $acknowledged jobs in $((SECONDS - fill_start)) s"
sleep 2  # a cycle ranks them

# 1b. Reads alone while cycles run: 5 s each with 1, 4 and 16 connections (not with --quick).
if [ -z "$quick" ]; then
  for readers_alone in 1 4 16; do
    wrk --latency -t1 -c"$readers_alone" -d5s -s "$root/bench/serve/read_queue.lua" "$url" > "$work/alone.out" 2>&1
    echo "serve_load: reads alone, $readers_alone connections: $(rate alone) pages/s, p50 $(field alone p50_ms) ms," \
      "p99 $(field alone p99_ms) ms"
  done
fi

# 2. Mixed: submissions, reads and swaps while cycles run.
policy="$(cat "$root/policies/saas.allot")"
swapped="${policy/debug => 500/debug => 600}"
(
  swaps=0
  end=$((SECONDS + duration))
  while [ "$SECONDS" -lt "$end" ]; do
    text="$policy"; [ $((swaps % 2)) -eq 0 ] && text="$swapped"
    code="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $ALLOT_TOKEN" \
      --data-binary "$text" "$url/policy")"
    [ "$code" = 200 ] && swaps=$((swaps + 1))
    sleep 2
  done
  echo "$swaps" > "$work/swaps"
) &
swapper=$!
connections=$((connections + 16))
ALLOT_LOAD_RUN=mixed wrk --latency -t1 -c16 -d"${duration}s" -s "$root/bench/serve/submit.lua" "$url" > "$work/mixed-submit.out" 2>&1 &
submitter=$!
wrk --latency -t1 -c"$readers" -d"${duration}s" -s "$root/bench/serve/read_queue.lua" "$url" > "$work/mixed-read.out" 2>&1
wait "$submitter"
wait "$swapper"
got="$(field mixed-submit acknowledged)"
acknowledged=$((acknowledged + ${got:-0}))
cycles="$(curl -s "$url/metrics" | sed -n 's/^allot_serve_cycle_duration_seconds_count \(.*\)/\1/p')"
cycle_sum="$(curl -s "$url/metrics" | sed -n 's/^allot_serve_cycle_duration_seconds_sum \(.*\)/\1/p')"
echo "serve_load: mixed, ${duration} s: submissions $(rate mixed-submit)/s (p50 $(field mixed-submit p50_ms) ms," \
  "p99 $(field mixed-submit p99_ms) ms); queue pages ($readers connections) $(rate mixed-read)/s (p50 $(field mixed-read p50_ms) ms," \
  "p99 $(field mixed-read p99_ms) ms, $(field mixed-read failures) failures); $(cat "$work/swaps") policy swaps;" \
  "cycles so far $cycles, mean $(awk -v s="$cycle_sum" -v c="$cycles" 'BEGIN { printf "%.0f", (c > 0 ? 1000 * s / c : 0) }') ms"

# 3. Nothing acknowledged is lost.
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=()
stored="$(sqlite3 "$work/load.db" "SELECT COUNT(*) FROM serve_jobs WHERE id LIKE 'w%'")"
# wrk stops with requests in flight: those may be stored without their answer
# having been read, so more may be stored than wrk counted, never fewer.
echo "serve_load: $acknowledged submissions acknowledged, $stored stored, $((stored - acknowledged)) of them" \
  "in flight when wrk stopped (durability $durability)"
[ "$stored" -ge "$acknowledged" ] || { echo "serve_load: LOST $((acknowledged - stored)) acknowledged submissions"; exit 1; }
[ "$((stored - acknowledged))" -le "$connections" ] ||
  { echo "serve_load: more stored than $connections connections could have had in flight"; exit 1; }
[ "$(field mixed-read failures)" = 0 ] || { echo "serve_load: queue reads failed"; exit 1; }
