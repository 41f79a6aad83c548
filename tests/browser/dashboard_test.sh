#!/usr/bin/env bash
# The dashboard (`GET /` of `allot serve`, service/web/dashboard.html) in a real
# browser: Debian's chromium, headless, driven by playwright-core
# (dashboard_test.mjs). This script starts `allot serve` on a temporary database
# and token, seeds a living state through the API (twelve jobs over four leaf
# accounts and the three classes, a checkpoint, a finish, a policy swap), then
# runs the browser test, which asserts on every view and keeps a full-page
# screenshot of each in OUTPUT_DIR.
#
# Usage: dashboard_test.sh ALLOT OUTPUT_DIR
#   OUTPUT_DIR (created) receives playwright-core (installed with `npm ci` from
#   this folder's package-lock.json), the screenshots and the server's log.
#   ALLOT_CHROMIUM overrides the browser (default /usr/bin/chromium).
# Exit 77 (CTest's skip) when node (18 or later), npm, curl or chromium is missing,
# with the reason; scripts/setup.sh installs chromium, and Node.js and npm where
# there are none, so CI runs it.
set -euo pipefail
allot="$1"
out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
chromium="${ALLOT_CHROMIUM:-/usr/bin/chromium}"
say() { echo "dashboard_test: $*"; }
fail() { echo "dashboard_test: FAILED: $*" >&2; exit 1; }
skip() { say "SKIPPED: $*"; exit 77; }

command -v node >/dev/null || skip "node is not installed (scripts/setup.sh installs it)"
command -v npm >/dev/null || skip "npm is not installed (scripts/setup.sh installs it)"
command -v curl >/dev/null || skip "curl is not installed"
[ -x "$chromium" ] || skip "no chromium at $chromium (scripts/setup.sh installs it)"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' ||
  skip "node $(node --version) is older than 18, which playwright-core needs"
started_at=$(date +%s)

# playwright-core into the build tree, once per lockfile (npm ci is exact: the lockfile's
# version and integrity hash, no install scripts).
mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -f "$out"/*.png "$out/server.log"
stamp="$out/node_modules/.allot-lock-stamp"
want="$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$out/node_modules/playwright-core/package.json" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$out/"
  say "installing playwright-core into $out/node_modules (npm ci)"
  (cd "$out" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
fi

work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -f "$work/server.log" ]; then cp "$work/server.log" "$out/server.log"; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A token of 64 hex characters, readable by its owner only (the server refuses others).
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/token"
chmod 600 "$work/token"
token="$(cat "$work/token")"

: > "$work/server.log"  # there before the loop below reads it
"$allot" serve --policy "$root/policies/saas.allot" --cluster "$root/examples/clusters/saas-8gpu.toml" \
  --db "$work/serve.db" --token-file "$work/token" --listen 127.0.0.1:0 --interval 1s --charge-every 1s \
  --sample-every 1s > "$work/server.log" 2>&1 &
pid=$!
port=""
for _ in $(seq 100); do
  port="$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$work/server.log")"
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$port" ]; then fail "allot serve did not start: $(cat "$work/server.log")"; fi
base="http://127.0.0.1:$port"
say "allot serve on $base"

# api METHOD PATH EXPECTED_STATUS [BODY [CONTENT_TYPE]]: one call; its answer in $work/answer.
api() {
  local method="$1" path="$2" expected="$3" body="${4:-}" type="${5:-application/json}" code
  local args=(-s -o "$work/answer" -w '%{http_code}' --max-time 10 -X "$method")
  if [ "$method" != GET ]; then args+=(-H "Authorization: Bearer $token"); fi
  if [ -n "$body" ]; then args+=(-H "Content-Type: $type" --data-binary "$body"); fi
  code="$(curl "${args[@]}" "$base$path" || true)"
  if [ "$code" != "$expected" ]; then
    fail "seeding: $method $path answered $code, expected $expected: $(cat "$work/answer" 2>/dev/null || true)"
  fi
}
# field JSON_PATH: a field of the last answer (e.g. `phase`, `cycle`).
field() {
  node -e 'let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => {
    let v = JSON.parse(s); for (const k of process.argv[1].split(".")) v = v == null ? v : v[k];
    console.log(v === undefined || v === null ? "" : v); })' "$1" < "$work/answer"
}
cycle() { api GET "/queue?limit=1" 200; field cycle; }
# wait_cycles N: until N more cycles have run (interval 1s; at most 30 s).
wait_cycles() {
  local now target
  now="$(cycle)" || exit 1
  target=$((now + $1))
  for _ in $(seq 300); do
    now="$(cycle)" || exit 1
    [ "$now" -ge "$target" ] && return 0
    sleep 0.1
  done
  fail "seeding: the cycle count stayed at $now, below $target, for 30 s"
}
# wait_phase JOB PHASE: until the job is in that phase (at most 20 s).
wait_phase() {
  local phase=""
  for _ in $(seq 200); do
    api GET "/jobs/$1" 200
    phase="$(field phase)"
    [ "$phase" = "$2" ] && return 0
    sleep 0.1
  done
  fail "seeding: job $1 is $phase, not $2, after 20 s"
}
submit() { api POST /jobs 201 "$1"; }
in_hours() { date -u -d "+$1 hours" +%Y-%m-%dT%H:%M:%SZ; }

# First wave: one train and one eval of product and a train of ana fill the eight H100s,
# so a preemptible (train) and a non-preemptible (eval) job run. Train asks for two
# hours of protection: nothing is preempted while the browser looks.
submit '{"id":"product-train-1","account":"product","class":"train","gpus_per_node":4,"requested_protect":"2h","expected_runtime":"24h"}'
submit "{\"id\":\"product-eval-1\",\"account\":\"product\",\"class\":\"eval\",\"gpus_per_node\":2,\"deadline\":\"$(in_hours 6)\",\"expected_runtime\":\"1h\"}"
submit '{"id":"ana-train-1","account":"exploration/ana","class":"train","gpus_per_node":2,"requested_protect":"2h","expected_runtime":"6h"}'
wait_phase product-train-1 running
wait_phase product-eval-1 running
wait_phase ana-train-1 running

# Second wave: nine more over the four leaves and the three classes; more than fit.
submit '{"id":"product-debug-1","account":"product","class":"debug","gpus_per_node":1,"expected_runtime":"10m"}'
submit '{"id":"platform-train-1","account":"platform","class":"train","gpus_per_node":4,"requested_protect":"2h","expected_runtime":"12h"}'
submit '{"id":"platform-train-2","account":"platform","class":"train","gpus_per_node":2,"requested_protect":"1h"}'
submit "{\"id\":\"platform-eval-1\",\"account\":\"platform\",\"class\":\"eval\",\"gpus_per_node\":4,\"deadline\":\"$(in_hours 3)\",\"expected_runtime\":\"90m\"}"
submit '{"id":"ana-debug-1","account":"exploration/ana","class":"debug","gpus_per_node":1,"expected_runtime":"5m"}'
submit '{"id":"ana-train-2","account":"exploration/ana","class":"train","gpus_per_node":1,"requested_protect":"2h"}'
submit '{"id":"ben-train-1","account":"exploration/ben","class":"train","gpus_per_node":4,"requested_protect":"2h"}'
submit "{\"id\":\"ben-eval-1\",\"account\":\"exploration/ben\",\"class\":\"eval\",\"gpus_per_node\":1,\"deadline\":\"$(in_hours 12)\",\"expected_runtime\":\"30m\"}"
submit '{"id":"ben-debug-1","account":"exploration/ben","class":"debug","gpus_per_node":1,"expected_runtime":"15m"}'
wait_cycles 2

# The executor's reports: product's train checkpointed, ana's train finished (its two
# GPUs go to the best of the queue at the next cycle).
api POST /events 200 '{"kind":"checkpointed","job":"product-train-1"}'
api POST /events 200 '{"kind":"finished","job":"ana-train-1"}'
wait_cycles 2

# A policy swap with one visible change: debug's class boost 500 -> 600. The imports
# (stdlib/...) resolve through the server's import path, so the text is posted as it is.
sed 's/debug => 500/debug => 600/' "$root/policies/saas.allot" > "$work/saas-v2.allot"
if ! grep -q 'debug => 600' "$work/saas-v2.allot"; then
  fail "policies/saas.allot has no 'debug => 500' to change; update this test"
fi
api POST /policy 200 "@$work/saas-v2.allot" text/plain
say "policy swapped: $(tr -d '\n' < "$work/answer" | cut -c1-200)"
wait_cycles 2
say "seeded in $(( $(date +%s) - started_at )) s: 12 jobs, a checkpoint, a finish, a policy swap; cycle $(cycle)"

ALLOT_CHROMIUM="$chromium" ALLOT_BROWSER_MODULES="$out/node_modules" \
  node "$here/dashboard_test.mjs" "$base" "$out"
say "passed in $(( $(date +%s) - started_at )) s; screenshots in $out"
