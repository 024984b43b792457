#!/usr/bin/env bash
# The sanitizer job of CI: builds the framework, plugins, backends and the tests
# of tests/ and plugins/ with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in a second build folder (build-sanitize/, or
# HMO_SANITIZE_BUILD_DIR), with the libFuzzer targets of tests/fuzz, and runs
# that test suite there: the tests, the fuzz regressions, and each fuzzer for
# HMO_FUZZ_RUNS inputs. To keep CI inside its time on 2 cores it leaves out the
# backends' own unit tests and the few tests that execute whole models (SSD
# MobileNet, the attention accuracy model, the corpus programs), which take
# minutes each under ASan; the same code runs there on the smaller modules.
# Run after scripts/bootstrap.sh test (which installs clang).
#   scripts/sanitize.sh                  configure, build everything, run ctest
#   scripts/sanitize.sh --build TARGET   configure and build TARGET only (scripts/fuzz.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HMO_SANITIZE_BUILD_DIR:-$root/build-sanitize}
cxx=$(command -v clang++-14 || command -v clang++ || true)
cc=$(command -v clang-14 || command -v clang || true)
if [ -z "$cxx" ]; then
  echo "sanitize.sh: needs clang (scripts/bootstrap.sh test installs it)" >&2
  exit 2
fi
cmake_bin=/usr/bin/cmake
[ -x "$cmake_bin" ] || cmake_bin=cmake
jobs=$(nproc)
"$cmake_bin" -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DHMO_SANITIZE=address,undefined \
  -DHMO_BUILD_FUZZERS=ON -DHMO_BUILD_BENCH=OFF -DHMO_BUILD_BACKEND_TESTS=OFF -DHMO_FUZZ_RUNS="${HMO_FUZZ_RUNS:-2000}" > /dev/null
if [ "${1:-}" = --build ]; then
  exec "$cmake_bin" --build "$build" -j "$jobs" --target "${2:?--build needs a target}"
fi
"$cmake_bin" --build "$build" -j "$jobs"
# An invalid access or undefined behaviour fails the test that hit it. Leak
# checking is off: LeakSanitizer's tracer crashes at exit in some VMs and
# containers (it needs ptrace-like stop-the-world), failing clean processes.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$build"
whole_models='ssd_mobilenet|SsdMobilenet|AttentionAccuracy|JaxCorpusExecution|JaxCorpusEvaluator'
ctest --output-on-failure -j "$jobs" -E "$whole_models"
