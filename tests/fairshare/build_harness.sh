#!/usr/bin/env bash
# Builds tests/fairshare/slurm_harness.c against the Slurm the machine runs:
# Debian's source package of the installed slurm-wlm (the exact code the
# installed priority_multifactor.so was built from) gives the private headers
# and the two objects test24.4's program links (slurmctld/locks.c,
# sshare/process.c); libslurmfull and the plugin are the installed ones.
# Usage: tests/fairshare/build_harness.sh OUT_DIR   (prints the harness's path)
# The source is fetched once (`apt-get source`, a private source list, so the
# machine's apt configuration is untouched) into ALLOT_SLURM_SOURCE_CACHE
# (default ~/.cache/allot/slurm-source) and configured once (~1.5 min).
# It compiles Slurm's GPL code: it stays in tests/, never in the product.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
cache=${ALLOT_SLURM_SOURCE_CACHE:-$HOME/.cache/allot/slurm-source}
plugins=/usr/lib/x86_64-linux-gnu/slurm-wlm
log=$out/build_harness.log
: >"$log"

version=$(dpkg-query -W -f='${Version}' slurm-wlm 2>/dev/null || true)
if [ -z "$version" ] || [ ! -f "$plugins/priority_multifactor.so" ] || [ ! -f "$plugins/libslurmfull.so" ]; then
  echo "build_harness: slurm-wlm and libslurm-dev must be installed (scripts/setup.sh)" >&2
  exit 1
fi
upstream=${version%%-*}  # 22.05.8-4+deb12u3 -> 22.05.8
src=$cache/$version
if [ ! -f "$src/.configured" ]; then
  rm -rf "$src" && mkdir -p "$src/parts" "$src/lists/partial"
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$src/parts/src.sources"
  apt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$src/parts" -o "Dir::State::Lists=$src/lists")
  (cd "$src" && apt-get "${apt[@]}" update && apt-get "${apt[@]}" source --download-only "slurm-wlm=$version") >>"$log" 2>&1 ||
    { echo "build_harness: apt-get source slurm-wlm=$version failed; see $log" >&2; exit 1; }
  tar -xzf "$src/slurm-wlm_${upstream}.orig.tar.gz" -C "$src"
  tree=$(find "$src" -maxdepth 1 -type d -name 'slurm-*' | head -n 1)
  ln -sfn "$tree" "$src/tree"
  # Debian's patches (none touches the priority plugin or assoc_mgr) are applied
  # so the headers are those the installed libraries were built with.
  tar -xJf "$src/slurm-wlm_${version}.debian.tar.xz" -C "$src/tree"
  (cd "$src/tree" && while read -r patch; do
     case "$patch" in ''|'#'*) continue ;; esac
     patch -p1 -s <"debian/patches/$patch"
   done <debian/patches/series) >>"$log" 2>&1 || { echo "build_harness: Debian's patches do not apply; see $log" >&2; exit 1; }
  (cd "$src/tree" && ./configure --quiet) >>"$log" 2>&1 || { echo "build_harness: configure failed; see $log" >&2; exit 1; }
  touch "$src/.configured"
fi
tree=$src/tree
include=(-I"$tree" -I"$tree/src/common")
if [ ! -f "$src/locks.o" ] || [ ! -f "$src/process.o" ]; then
  gcc -c "${include[@]}" "$tree/src/slurmctld/locks.c" -o "$src/locks.o" 2>>"$log"
  gcc -c "${include[@]}" "$tree/src/sshare/process.c" -o "$src/process.o" 2>>"$log"
fi
harness=$out/slurm_fairshare_harness
if [ ! -x "$harness" ] || [ "$here/slurm_harness.c" -nt "$harness" ]; then
  gcc -O1 -w "${include[@]}" "$here/slurm_harness.c" "$src/locks.o" "$src/process.o" -L"$plugins" \
    -Wl,-rpath,"$plugins" -lslurmfull -ldl -lm -lpthread -export-dynamic -o "$harness" 2>>"$log" ||
    { echo "build_harness: compiling the harness failed; see $log" >&2; exit 1; }
fi
cat >"$out/slurm.conf" <<CONF
ClusterName=allot
SlurmctldHost=localhost
PriorityType=priority/multifactor
PluginDir=$plugins
CONF
echo "$harness"
