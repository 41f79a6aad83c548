#!/usr/bin/env bash
# allot serve and what a policy gets wrong about the cluster it runs on: a unit
# weight for a GPU type the cluster lacks (saas.allot with `h10O`) and a class
# asking for more GPUs than it has. Both start and swap (never refused: a
# running scheduler keeps scheduling), with a warning naming file, line and
# code in the server's log; a swap also in POST /policy's answer. The same
# policy fails `allot check --cluster` (CI refuses what the server tolerates).
# Usage: cluster_warnings_test.sh ALLOT      (exit 77: curl or python3 missing)
set -euo pipefail
allot="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tests/service/serve_support.sh"
require cluster_warnings_test curl python3
cluster="$root/examples/clusters/saas-8gpu.toml"
fail() { echo "cluster_warnings_test: $*"; exit 1; }

sed 's/^    h100 = 1.0$/    h10O = 1.0/' "$root/policies/saas.allot" > "$work/misspelt.allot"
sed 's/^    max_gpus 4$/    max_gpus 64/' "$root/policies/saas.allot" > "$work/big.allot"
grep -q 'h10O' "$work/misspelt.allot" && grep -q 'max_gpus 64' "$work/big.allot" ||
  fail "could not edit saas.allot"
line="$(grep -n 'h10O' "$work/misspelt.allot" | cut -d: -f1)"
status=0
"$allot" check --now 2026-12-01 --cluster "$cluster" "$work/misspelt.allot" > /dev/null 2>&1 || status=$?
[ "$status" = 1 ] || fail "allot check --cluster exits $status on the misspelt unit, expected 1"

make_token "$work/token"
serve_start "$work/serve.log" --policy "$work/misspelt.allot" --cluster "$cluster" --db "$work/serve.db" \
  --token-file "$work/token" --listen 127.0.0.1:0 --interval 1s --now 2026-12-01
grep -qF "allot serve: $work/misspelt.allot:$line:5: warning[unknown_name]: cluster \`$cluster\` has no GPU type \`h10O\`" \
  "$work/serve.log" || { cat "$work/serve.log"; fail "no warning at start for the misspelt unit"; }

curl -s -o "$work/swap.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $(cat "$work/token")" \
  --data-binary "@$work/big.allot" "http://127.0.0.1:$port/policy" > "$work/swap.code"
[ "$(cat "$work/swap.code")" = 200 ] || { cat "$work/swap.json"; fail "the swap answered $(cat "$work/swap.code")"; }
python3 - "$work/swap.json" <<'PY' || exit 1
import json, sys
answer = json.load(open(sys.argv[1]))
warnings = [d for d in answer["diagnostics"] if d["severity"] == "warning" and d["code"] == "invalid_contract"]
if not answer["swapped"] or len(warnings) != 1 or "lets a job ask for 64 GPUs" not in warnings[0]["message"]:
    print(f"cluster_warnings_test: POST /policy answered {json.dumps(answer)[:600]}")
    sys.exit(1)
PY
for _ in $(seq 50); do
  grep -q 'warning\[invalid_contract\]: class `eval` lets a job ask for 64 GPUs' "$work/serve.log" && break
  sleep 0.1
done
grep -q 'allot serve: policy swapped to' "$work/serve.log" || { cat "$work/serve.log"; fail "the swap is not in the log"; }
grep -q 'warning\[invalid_contract\]: class `eval` lets a job ask for 64 GPUs' "$work/serve.log" ||
  { cat "$work/serve.log"; fail "no warning in the log for the swapped policy"; }
echo "cluster_warnings_test: warned at start and on a swap, in the log and in POST /policy's answer"
