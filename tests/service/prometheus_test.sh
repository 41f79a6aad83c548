#!/usr/bin/env bash
# allot serve's metrics against the real thing: `promtool check metrics` on
# its exposition, a real Prometheus scraping it every second, and every query
# of the example Grafana dashboard (examples/grafana/allot-serve.json) run
# against that Prometheus: each must succeed and return data.
# Usage: prometheus_test.sh ALLOT      (exit 77: prometheus, promtool or curl missing)
set -euo pipefail
allot="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tests/service/serve_support.sh"
require prometheus_test prometheus promtool curl
serve_start "$work/allot.log" --demo --speed 3000 --interval 1s --listen 127.0.0.1:0 --db "$work/demo.db"
sleep 2
curl -sf "http://127.0.0.1:$port/metrics" > "$work/metrics.txt"
promtool check metrics < "$work/metrics.txt"
echo "prometheus_test: promtool check metrics: clean ($(grep -vc '^#' "$work/metrics.txt") samples)"

cat > "$work/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: allot
    static_configs:
      - targets: ["127.0.0.1:$port"]
YAML
prom_port=""
for _ in 1 2 3 4 5; do
  candidate=$((20000 + RANDOM % 20000))
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$candidate" > "$work/prometheus.log" 2>&1 &
  prom=$!
  for _ in $(seq 50); do
    if curl -sf "http://127.0.0.1:$candidate/-/ready" >/dev/null 2>&1; then prom_port=$candidate; break; fi
    kill -0 "$prom" 2>/dev/null || break
    sleep 0.2
  done
  if [ -n "$prom_port" ]; then pids+=("$prom"); break; fi
  kill "$prom" 2>/dev/null || true
done
[ -n "$prom_port" ] || { echo "prometheus_test: prometheus did not start:"; cat "$work/prometheus.log"; exit 1; }

query() { curl -sf -G --data-urlencode "query=$1" "http://127.0.0.1:$prom_port/api/v1/query"; }
# Wait until the target is up and a few scrapes are in.
for _ in $(seq 60); do
  if query 'up{job="allot"}' | grep -q '"value":\[[0-9.]*,"1"\]'; then break; fi
  sleep 0.5
done
query 'up{job="allot"}' | grep -q '"value":\[[0-9.]*,"1"\]' || { echo "prometheus_test: the target is not up"; exit 1; }
sleep 8

failed=0
count=0
while IFS= read -r expr; do
  count=$((count + 1))
  concrete="${expr//\$__rate_interval/1m}"
  answer="$(query "$concrete" || echo 'request failed')"
  if ! printf '%s' "$answer" | grep -q '"status":"success"'; then
    echo "prometheus_test: FAIL $expr: $answer"; failed=$((failed + 1))
  elif printf '%s' "$answer" | grep -q '"result":\[\]'; then
    echo "prometheus_test: FAIL $expr: no data"; failed=$((failed + 1))
  else
    echo "prometheus_test: ok   $expr"
  fi
done < <(sed -n 's/.*"expr": "\([^"]*\)".*/\1/p' "$root/examples/grafana/allot-serve.json")
[ "$count" -ge 10 ] || { echo "prometheus_test: only $count queries found in the dashboard"; exit 1; }
echo "prometheus_test: $count dashboard queries, $failed failed"
[ "$failed" -eq 0 ]
