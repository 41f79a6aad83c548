#!/usr/bin/env bash
# The whole test suite: install what is missing, then
#   1. formatting drift (clang-format) fails the run,
#   2. short libFuzzer runs of the policy front end and the input readers (clang-19),
#   3. the tests under AddressSanitizer + UndefinedBehaviorSanitizer,
#   4. the hot-swap and service concurrency tests under ThreadSanitizer,
#   5. the tests in the normal build (last, so its summary closes the output).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="$(nproc)"
# Each stage says when it starts, so a slow CI run shows where the time went.
stage() { echo "== $1 (at ${SECONDS}s)"; }

stage "formatting"
bash scripts/format.sh --check

stage "fuzzing the front end and the input readers"
# The fuzz and sanitizer builds keep line tables, so a crash's stack has line
# numbers, at -O1: on 2 cores that halves their compile time (the largest part
# of CI), and the sanitized tests and fuzzers run about as fast as at -O2.
sanitizer_flags=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
CC=clang-19 CXX=clang++-19 ALLOT_BUILD_TYPE=RelWithDebInfo bash scripts/build.sh build-fuzz -DALLOT_FUZZ=ON "${sanitizer_flags[@]}" \
  -- fuzz_front_end fuzz_inputs
bash fuzz/run.sh build-fuzz "${ALLOT_FUZZ_SECONDS:-45}"
bash fuzz/run_inputs.sh build-fuzz "${ALLOT_FUZZ_SECONDS:-45}"

stage "tests under ASan + UBSan"
ALLOT_BUILD_TYPE=RelWithDebInfo bash scripts/build.sh build-asan -DALLOT_SANITIZE=ON "${sanitizer_flags[@]}" \
  -- allot allot_frontend_tests allot_tests allot_runtime_tests allot_cycle_tests allot_simulator_tests allot_slurm_tests \
     allot_http_tests allot_service_tests allot_plot_tests
# Sanitizers make each evaluation ~10x slower: fewer random states and mutants
# here; the normal build below runs the full counts.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ALLOT_DIFFERENTIAL_STATES=10000 ALLOT_MUTATIONS=1000 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE "slurm|large|browser|install"  # the real-Slurm, large-input, browser and install tests run once, below

stage "hot swap and the service under ThreadSanitizer"
# One executable and one tag: policies swapped while cycles run on other threads.
ALLOT_BUILD_TYPE=RelWithDebInfo bash scripts/build.sh build-tsan -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
  "${sanitizer_flags[@]}" -- allot_cycle_tests allot_service_tests
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ./build-tsan/tests/allot_cycle_tests "[hot_swap]"
# allot serve: HTTP workers submitting (group commits) and reading while cycles run.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ./build-tsan/tests/allot_service_tests "[concurrency]"

stage "tests"
bash scripts/build.sh build  # Release: main.sh's build, and the one the benchmarks measure
ctest --test-dir build --output-on-failure -j "$jobs"
stage "done"
