#!/usr/bin/env bash
# Runs the heap-packing benchmark (bench/heap_packing_bench.cc) over the
# MiniMalloc / idealloc instances: lower bound, XLA best fit and
# TightPackingHeap per instance, then a SUMMARY line with the geometric means
# of ours / best-fit and ours / lower bound.
#
# usage: bench/minimalloc/run.sh [BUILD_DIR] [-- extra benchmark flags]
#   BUILD_DIR  CMake build directory (default: build-heap); configured and
#              built here if needed.
# Extra flags go to the benchmark, e.g. --node_budget=2000000,
# --time_limit=60, --only=challenging, --alignment=64,
# --data_dir=../shared/bench/minimalloc (default: bench/minimalloc/data for
# the small instances, ../shared/bench/minimalloc for the large realworld
# ones, which are not copied into the repository).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-build-heap}"
[[ $# -gt 0 ]] && shift
[[ "${1:-}" == "--" ]] && shift
case "$build" in /*) ;; *) build="$repo/$build" ;; esac
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$repo" -B "$build" -G Ninja
fi
ninja -C "$build" hmo_heap_packing_bench
exec "$build/bin/hmo_heap_packing_bench" --benchmark_format=console "$@"
