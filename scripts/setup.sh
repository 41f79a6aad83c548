#!/usr/bin/env bash
# Installs the Debian packages Allot needs, only those missing (idempotent).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  antlr4 libantlr4-runtime-dev uuid-dev
  libtomlplusplus-dev libfmt-dev catch2 nlohmann-json3-dev libcli11-dev
  llvm-19-dev libzstd-dev zlib1g-dev libsqlite3-dev libbenchmark-dev
  clang-19 libclang-rt-19-dev clang-format
  slurm-wlm munge libslurm-dev
  lua5.1  # runs the generated job_submit.lua in its tests (tests/slurm/job_submit_test.cpp)
  slurmdbd mariadb-server  # a real `sacctmgr dump` for the import test (tests/slurm/sacctmgr_dump.sh)
  libcpp-httplib-dev  # the HTTP listener (http/)
  prometheus          # promtool, which checks the metrics exposition and the alert rules in the tests
  logrotate systemd   # check the operations kit (tests/packaging): logrotate and systemd-analyze
  sqlite3             # the ledger's backup and restore (docs/SLURM.md), tested on the sandbox
  chromium            # the dashboard's real-browser test (tests/browser), driven headless by playwright-core
  wrk                 # allot serve's load test (bench/serve_load.sh; a short run is a test)
  git                 # allot --version's commit, and allot diff's git:REV:PATH sides (tests/cli/diff_command_test.cpp)
  dpkg-dev binutils groff-base  # the .deb packages' Depends (dpkg-shlibdeps), readelf and man pages (tests/packaging)
  python3 python3-yaml          # the TextMate grammar's test (tests/editors) and the CI examples' YAML
)
# Node.js and npm run that test's driver: Debian's `nodejs` and `npm` only where no
# `node` / `npm` is on the PATH. A machine with another Node.js keeps it (nodesource's
# bundles npm, and Debian's npm would conflict with it).
if ! command -v node >/dev/null; then packages+=(nodejs); fi
if ! command -v npm >/dev/null; then packages+=(npm); fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
# Slurm's and munge's maintainer scripts would start the system daemons; the
# tests run their own (scripts/slurm-sandbox.sh). Forbid service starts
# for the install where the machine has no policy of its own.
made_policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee /usr/sbin/policy-rc.d >/dev/null
  "${sudo_cmd[@]}" chmod 0755 /usr/sbin/policy-rc.d
  made_policy=1
fi
status=0
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || status=$?
if [ -n "$made_policy" ]; then "${sudo_cmd[@]}" rm -f /usr/sbin/policy-rc.d; fi
exit "$status"
