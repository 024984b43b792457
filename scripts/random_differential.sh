#!/usr/bin/env bash
# Long randomized differential runs: the generated module families through
# every pipeline and scheduler strategy, executed and checked against the
# reference evaluator, with fresh seeds (ctest runs seeds 1,2,3 only).
#   scripts/random_differential.sh [ROUNDS] [BUILD_DIR]
# Prints the seeds of each round; a failing round's seeds reproduce it with
#   HMO_DIFFERENTIAL_SEEDS=<seeds> BUILD/bin/hmo_scheduler_tests --gtest_filter='*RandomizedDifferential*'
set -euo pipefail
rounds=${1:-10}
build=${2:-$(cd "$(dirname "$0")/.." && pwd)/build}
status=0
for ((r = 0; r < rounds; r++)); do
  seeds=$((RANDOM * 32768 + RANDOM)),$((RANDOM * 32768 + RANDOM)),$((RANDOM * 32768 + RANDOM))
  echo "== round $r: seeds $seeds"
  if ! HMO_DIFFERENTIAL_SEEDS=$seeds "$build/bin/hmo_scheduler_tests" \
      --gtest_filter='*RandomizedDifferential*' --gtest_brief=1; then
    echo "FAILED with HMO_DIFFERENTIAL_SEEDS=$seeds"
    status=1
  fi
done
exit $status
