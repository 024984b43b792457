#!/usr/bin/env bash
# The memory-plan benchmark in one run: the packer on the public packing
# instances (lower bound, XLA best-fit, hmo, times), the decision search at
# MiniMalloc's capacities, then the scheduler on the
# JAX corpus (XLA's temp, hmo's temp after memory-scheduler, ratio, geometric
# means). Needs a built hmo (scripts/bootstrap.sh example, or BUILD_DIR).
#
# usage: bench/memory_plan/run.sh [BUILD_DIR]   (default: build)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$repo/build}"
echo "== packing: hmo pack against XLA's best-fit =="
python3 "$repo/bench/memory_plan/packing.py" --hmo "$build/bin/hmo"
echo
echo "== decision: hmo pack --capacity on MiniMalloc's challenging instances =="
python3 "$repo/bench/memory_plan/decision.py" --hmo "$build/bin/hmo"
echo
echo "== scheduling: temp bytes after memory-scheduler against XLA, JAX corpus =="
python3 "$repo/bench/memory_plan/corpus_temp.py" --hmo "$build/bin/hmo"
