#!/usr/bin/env bash
# The main job on a bundled example: the host-offload pipeline (placement
# annotations -> S(5), propagation, aliasing, memory scheduler, memory report)
# on a real XLA module, its memory figures, then the optimized module run on
# the CPU backend (device and host arenas as planned) and checked against the
# reference evaluator on the original, and the same on the GPU backend's
# path (the emulated device when there is no GPU, the device when there is).
# Usage: scripts/run-example.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
module=$root/examples/modules/host_offload_jit_f_while_loops.hlo
out=$build/example.out.hlo
"$build/bin/hmo" run "$root/pipelines/host-offload.yaml" "$module" -o "$out"
"$build/bin/hmo" stats "$out"
echo "== optimized module written to $out"
"$build/bin/hmo" run "$root/pipelines/host-offload.yaml" "$module" --report --check --seed 1 \
  --results-dir "$build/example.results"
if [ -f "$build/lib/hmo/plugins/libhmo_gpu_backend.so" ]; then
  gpu_backend=gpu-emulated
  if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then gpu_backend=gpu; fi
  echo "== the same on the $gpu_backend backend"
  "$build/bin/hmo" run "$root/pipelines/host-offload.yaml" "$module" --execute --backend "$gpu_backend" --check \
    --seed 1 --results-dir "$build/example.gpu-results"
fi
