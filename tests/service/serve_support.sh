# Sourced by the scripts that run `allot serve` (tests/service/*.sh,
# bench/serve_load.sh): a work folder removed at exit with every process
# started through serve_start, and the server's port once it listens.
#   require NAME TOOL...    exit 77 (skipped) naming the first missing tool
#   serve_start LOG ARGS... start `$allot serve ARGS...` logging to LOG; sets $port
#   make_token FILE         a random token in FILE, mode 600
work="$(mktemp -d)"
pids=()
serve_cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap serve_cleanup EXIT

require() {
  local name="$1"; shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$name: $tool is not installed; skipped"; exit 77; }
  done
}

make_token() {
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$1"
  chmod 600 "$1"
}

serve_start() {
  local log="$1"; shift
  : > "$log"  # there before the loop below reads it
  "$allot" serve "$@" > "$log" 2>&1 &
  pids+=($!)
  port=""
  for _ in $(seq 100); do
    port="$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$log")"
    [ -n "$port" ] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "allot serve did not start:"; cat "$log"; exit 1
}
