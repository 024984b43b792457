#!/usr/bin/env bash
# Host offloading on the GPU backend: the same module (tests/gpu/mlp_offload.hlo,
# a 6-layer MLP forward + backward whose activations are annotated for pinned
# host memory) through the device-only pipeline and the host-offload pipeline,
# each run with --check on the GPU backend. Prints, per pipeline, the planned
# device arena, the device memory measured, and the compute / copy stream
# summary (busy time, overlap), then the offload / device-only ratio of the
# planned and measured device memory. Timelines (Chrome trace) are written to
# $OUT_DIR/<pipeline>/timeline.json.
#
# Usage: bench/gpu_offload/run_offload_bench.sh [BUILD_DIR] [BACKEND]
#   BACKEND: gpu (default when nvidia-smi sees a GPU) or gpu-emulated
#   (kernels on the host CPU: memory figures are real, stream timings are not).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
backend=${2:-}
if [[ -z $backend ]]; then
  backend=gpu-emulated
  if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then backend=gpu; fi
fi
out=${OUT_DIR:-$build/gpu-offload-bench}
module=$root/tests/gpu/mlp_offload.hlo
declare -A planned measured
for pipeline in device-default host-offload; do
  echo "== $pipeline on $backend"
  log=$("$build/bin/hmo" run "$root/pipelines/$pipeline.yaml" "$module" --execute --backend "$backend" --check \
          --seed 1 --results-dir "$out/$pipeline" 2>&1)
  echo "$log" | grep -E "planned arenas|device memory|streams|check|timeline"
  planned[$pipeline]=$(echo "$log" | sed -n 's/.*planned arenas: space 0 \([0-9]*\) B.*/\1/p')
  measured[$pipeline]=$(echo "$log" | sed -n 's/.*device memory: \([0-9]*\) B measured.*/\1/p')
done
awk -v pd="${planned[device-default]}" -v po="${planned[host-offload]}" \
    -v md="${measured[device-default]}" -v mo="${measured[host-offload]}" 'BEGIN {
  printf "device memory, host-offload / device-only: planned %.3f (%d / %d B), measured %.3f (%d / %d B)\n",
         po / pd, po, pd, mo / md, mo, md }'
