#!/usr/bin/env bash
# The main job on a bundled example: run the default device pipeline on a real
# XLA module and print the summary. Usage: scripts/run-example.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
hmo=$build/bin/hmo
module=$root/examples/modules/host_offload_jit_f_while_loops.hlo
out=$build/example.out.hlo
if [ -f "$root/pipelines/default.yaml" ] && "$hmo" run --help >/dev/null 2>&1; then
  "$hmo" run "$root/pipelines/default.yaml" "$module" -o "$out"
  echo "== optimized module written to $out"
else
  "$hmo" verify "$module"
  "$hmo" fmt "$module" -o "$out"
  echo "== canonical module written to $out"
fi
