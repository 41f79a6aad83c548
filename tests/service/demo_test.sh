#!/usr/bin/env bash
# `allot serve --demo`: one command, no cluster, a living service. Runs the demo
# fast (3,000 virtual seconds a real one) for a few seconds and checks through
# the API that time moves, jobs arrive, start and finish, usage is charged, the
# dashboard is served, and SIGTERM stops it cleanly.
# Usage: demo_test.sh ALLOT      (exit 77: curl missing)
set -euo pipefail
allot="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tests/service/serve_support.sh"
require demo_test curl
serve_start "$work/log" --demo --speed 3000 --interval 1s --listen 127.0.0.1:0 --db "$work/demo.db"
pid="${pids[0]}"
sleep 8
get() { curl -sf "http://127.0.0.1:$port$1"; }
overview="$(get /overview)"
cycle="$(printf '%s' "$overview" | sed -n 's/^  "cycle": \([0-9]*\),/\1/p')"
at="$(printf '%s' "$overview" | sed -n 's/^  "at": "\([^"]*\)",/\1/p')"
starts="$(get '/decisions?tail=1000' | grep -c '"kind":"start"' || true)"
finished="$(get '/jobs?phase=finished&limit=1000' | grep -c '"phase": "finished"' || true)"
charged="$(get /metrics | sed -n 's/^allot_serve_charged_units_total \(.*\)/\1/p')"
page="$(get / | grep -c '<title>Allot' || true)"
# Programs with work waiting are owed their share: debt is counted across the demo's long cycles.
owed="$(get /metrics | sed -n 's/^allot_serve_owed_units{program="[a-z]*"} \(.*\)/\1/p' | sort -g | tail -1)"
echo "demo_test: cycle $cycle at $at; $starts starts, $finished finished, $charged units charged, up to $owed owed;" \
  "dashboard $page"
[ "${cycle:-0}" -ge 5 ] || { echo "demo_test: fewer than 5 cycles ran"; cat "$work/log"; exit 1; }
[[ "$at" > "2026-11-30T05:00:00Z" ]] || { echo "demo_test: virtual time did not move ($at)"; exit 1; }
[ "$starts" -ge 5 ] || { echo "demo_test: fewer than 5 jobs started"; exit 1; }
[ "$finished" -ge 1 ] || { echo "demo_test: no job finished"; exit 1; }
awk -v c="${charged:-0}" 'BEGIN { exit !(c > 0) }' || { echo "demo_test: nothing was charged"; exit 1; }
awk -v o="${owed:-0}" 'BEGIN { exit !(o > 0) }' || { echo "demo_test: no program was owed anything ($owed)"; exit 1; }
[ "$page" -eq 1 ] || { echo "demo_test: no dashboard at /"; exit 1; }
# Cycles run on the main thread 10 nicer than the HTTP workers, which keep the nice allot started with.
started_nice="$(nice)"
cycle_nice="$(awk '{ print $19 }' "/proc/$pid/task/$pid/stat")"
worker_nices="$(for task in /proc/$pid/task/*; do [ "${task##*/}" = "$pid" ] || awk '{ print $19 }' "$task/stat"; done | sort -u)"
want=$((started_nice + 10 > 19 ? 19 : started_nice + 10))
[ "$cycle_nice" = "$want" ] || { echo "demo_test: the cycles run at nice $cycle_nice, not $want"; exit 1; }
[ "$worker_nices" = "$started_nice" ] || { echo "demo_test: other threads run at nice $worker_nices"; exit 1; }
if grep -q "demo: " "$work/log"; then
  if grep "demo: " "$work/log" | grep -v "demo: a week" | grep -q .; then
    echo "demo_test: the pretend executor reported problems:"; grep "demo: " "$work/log"; exit 1
  fi
fi
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pids=()
[ "$status" -eq 0 ] || { echo "demo_test: SIGTERM ended it with status $status"; cat "$work/log"; exit 1; }
grep -q "stopped" "$work/log" || { echo "demo_test: it did not say it stopped"; exit 1; }
