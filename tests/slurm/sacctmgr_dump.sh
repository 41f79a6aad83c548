#!/usr/bin/env bash
# Makes a real `sacctmgr dump`: starts munged, MariaDB and slurmdbd (Slurm
# 22.05, Debian's packages) in a private folder, creates a site's association
# tree with sacctmgr (deep accounts, FairShare=parent, zero and raw shares,
# users beside accounts, limits the import cannot carry), dumps it, and stops
# everything it started, also on failure.
# Usage: tests/slurm/sacctmgr_dump.sh OUT_FILE
# Needs root and slurmdbd + mariadb-server (scripts/setup.sh).
set -euo pipefail
out=$(realpath -m "$1")
for tool in munged mariadbd mariadb-install-db slurmdbd sacctmgr; do
  command -v "$tool" >/dev/null || { echo "sacctmgr_dump: $tool is missing (scripts/setup.sh installs it)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "sacctmgr_dump: needs root (slurmdbd runs as SlurmUser=root)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/allot-sacctmgr.XXXXXX")
chmod 0755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  for log in "$work"/*.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -n 15 "$log" >&2; }; done
  echo "sacctmgr_dump: $1" >&2
  exit 1
}
# Free ports away from the sandbox's and from other runs.
base=$((30000 + ($$ % 5000) * 4))
db_port=$base dbd_port=$((base + 1))

# munge, with its own key and socket.
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 0600 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged -F --force --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/munge/munged.pid" \
  --seed-file="$work/munge/munged.seed" </dev/null >"$work/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do munge -n -S "$socket" 2>/dev/null | unmunge -S "$socket" >/dev/null 2>&1 && break; sleep 0.05; done

# MariaDB on a private data folder, TCP on loopback only.
mariadb-install-db --no-defaults --datadir="$work/db" --user=root --auth-root-authentication-method=normal \
  >"$work/mariadb-install.log" 2>&1 || fail "mariadb-install-db failed"
mariadbd --no-defaults --datadir="$work/db" --user=root --bind-address=127.0.0.1 --port="$db_port" \
  --socket="$work/mariadb.sock" --pid-file="$work/mariadb.pid" --skip-log-bin --innodb-buffer-pool-size=64M \
  >"$work/mariadb.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do [ -S "$work/mariadb.sock" ] && break; sleep 0.1; done
[ -S "$work/mariadb.sock" ] || fail "MariaDB did not start"
mariadb --no-defaults --socket="$work/mariadb.sock" -uroot -e \
  "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'allot'; GRANT ALL ON *.* TO 'slurm'@'127.0.0.1';" ||
  fail "cannot create the slurm database user"

# slurmdbd, and a slurm.conf for sacctmgr that points at it.
cat >"$work/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$socket
DbdHost=localhost
DbdPort=$dbd_port
SlurmUser=root
LogFile=$work/slurmdbd.log
PidFile=$work/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=allot
StorageLoc=slurm_acct_db
CONF
chmod 0600 "$work/slurmdbd.conf"
cat >"$work/slurm.conf" <<CONF
ClusterName=campus
SlurmUser=root
SlurmctldHost=localhost
AuthType=auth/munge
AuthInfo=socket=$socket
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$dbd_port
# Clients sign their slurmdbd connections with this munge socket (not AuthInfo's).
AccountingStoragePass=$socket
CONF
export SLURM_CONF=$work/slurm.conf
# slurmdbd reads slurmdbd.conf beside $SLURM_CONF.
slurmdbd -D >"$work/slurmdbd-out.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do timeout 10 sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
timeout 10 sacctmgr -n list cluster >/dev/null 2>&1 || fail "slurmdbd did not answer"

s() { timeout 30 sacctmgr -i "$@" >>"$work/sacctmgr.log" 2>&1 || fail "sacctmgr $*"; }
s add cluster campus
s add account engineering cluster=campus parent=root fairshare=60 description=engineering organization=eng
s add account science cluster=campus parent=root fairshare=40 description=science organization=sci
s add account visitors cluster=campus parent=root fairshare=0 description=visitors organization=visitors
s add account ee cluster=campus parent=engineering fairshare=parent description=electrical organization=eng
s add account me cluster=campus parent=engineering fairshare=30 grptres=cpu=64 description=mechanical organization=eng
s add account ee-vlsi cluster=campus parent=ee fairshare=20 description=vlsi organization=eng
s add account physics cluster=campus parent=science fairshare=50 description=physics organization=sci
s add account theory cluster=campus parent=physics fairshare=1 description=theory organization=sci
s add account lattice cluster=campus parent=theory fairshare=1 description=lattice organization=sci
s add account qcd cluster=campus parent=lattice fairshare=1 description=qcd organization=sci
s add account gpu2 cluster=campus parent=qcd fairshare=1 description=gpu2 organization=sci
s add account chemistry cluster=campus parent=science fairshare=50 description=chemistry organization=sci
s add user dean cluster=campus account=engineering fairshare=10
s add user hana cluster=campus account=ee fairshare=parent
s add user ivan cluster=campus account=ee fairshare=15
s add user jo cluster=campus account=ee-vlsi fairshare=1
s add user kim cluster=campus account=ee-vlsi fairshare=1 maxjobs=10
s add user lee cluster=campus account=me fairshare=1
s add user mia cluster=campus account=gpu2 fairshare=1
s add user noor cluster=campus account=gpu2 fairshare=2
s add user olga cluster=campus account=chemistry fairshare=1
s add user pat cluster=campus account=visitors fairshare=1
timeout 30 sacctmgr -i dump campus file="$work/campus.dump" >>"$work/sacctmgr.log" 2>&1 || fail "sacctmgr dump failed"
cp "$work/campus.dump" "$out"
echo "sacctmgr_dump: wrote $out ($(wc -l <"$out") lines)"
