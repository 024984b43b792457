#!/usr/bin/env bash
# Device checks of the GPU backend (issue 8), for the days an NVIDIA GPU
# (H200) is lent. NOT part of ctest: run it by hand on the device machine,
#   tests/gpu/run_gpu_checks.sh            (from the repository root)
# It configures and builds the GPU targets, runs the GPU test binaries
# (their device tests skip on machines without a GPU and run here), runs
# `hmo run --execute --backend gpu --check` on real and small modules, and
# the pinned host memory pool benchmark, printing everything. Exit status:
# the number of failed steps (0 = all passed).
#
# Environment: HMO_GPU_BUILD_DIR (default build-gpu-device), JOBS (default:
# all cores), CMAKE (default: cmake; use the same cmake that configured an
# existing build dir, or it is regenerated from scratch),
# HMO_GPU_SKIP_BUILD=1 to reuse an existing build.

set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${HMO_GPU_BUILD_DIR:-$ROOT/build-gpu-device}
JOBS=${JOBS:-$(nproc)}
CMAKE=${CMAKE:-cmake}
FAILED=()

step() {  # step NAME COMMAND...: runs, prints, records failure
  local name=$1
  shift
  echo
  echo "=== $name: $*"
  local start=$SECONDS
  "$@"
  local rc=$?
  echo "=== $name: exit $rc ($((SECONDS - start)) s)"
  [[ $rc -eq 0 ]] || FAILED+=("$name (exit $rc)")
  return 0
}

echo "=== device"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1 || echo "nvidia-smi unavailable"
ls -l /usr/local/cuda/bin/ptxas /usr/local/cuda/nvvm/libdevice/libdevice.10.bc 2>&1

if [[ "${HMO_GPU_SKIP_BUILD:-0}" != 1 ]]; then
  GENERATOR=()
  command -v ninja > /dev/null && GENERATOR=(-G Ninja)
  step configure "$CMAKE" -S "$ROOT" -B "$BUILD" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  step build "$CMAKE" --build "$BUILD" -j "$JOBS" --target \
    hmo hmo_gpu_backend hmo_gpu_runtime_tests hmo_gpu_codegen_tests hmo_gpu_compiler_tests \
    hmo_gpu_nccl_tests hmo_gpu_host_memory_pool_bench hmo_cpu_backend
fi

HMO="$BUILD/bin/hmo"
# Test binaries land in bin/ (or beside their CMakeLists in older layouts).
find_binary() {
  local name=$1
  for candidate in "$BUILD/bin/$name" "$BUILD/backends/gpu/$name"; do
    [[ -x $candidate ]] && { echo "$candidate"; return; }
  done
  echo "$BUILD/bin/$name"
}

for tests in hmo_gpu_runtime_tests hmo_gpu_codegen_tests hmo_gpu_compiler_tests hmo_gpu_nccl_tests; do
  # --gtest_brief would hide which device tests ran; print them all.
  step "$tests" timeout 300 "$(find_binary "$tests")"
done

# Whole modules against the reference evaluator, on the device and (the
# same compiler, kernels built for the host) on the emulated device.
# Timelines (Chrome trace) and summaries go to $OUT when the device tool
# sets it.
RESULTS=${OUT:-$BUILD/gpu-check-results}
mkdir -p "$RESULTS"
for module in "$ROOT/tests/hlo/if_conditional.hlo" "$ROOT/tests/gpu/elementwise.hlo" \
              "$ROOT/tests/hlo/host_offload_jit_f_while_loops.hlo" \
              "$ROOT/tests/hlo/dynamic_update_slice_inplace_bf16.hlo" \
              "$ROOT/tests/hlo/graphsage_tf.hlo" "$ROOT/tests/hlo/ssd_mobilenet_tf.hlo"; do
  name=$(basename "$module" .hlo)
  step "check $name" timeout 300 "$HMO" run --passes=memory-report --execute --backend gpu --check \
    --seed 1 --results-dir "$RESULTS/$name" "$module"
done

# Host offload: the device arena with and without the host-offload
# pipeline, and the compute/copy stream timeline (copies overlapped).
step "offload: device-default" timeout 300 "$HMO" run "$ROOT/pipelines/device-default.yaml" --execute \
  --backend gpu --check --seed 1 --results-dir "$RESULTS/offload-device-default" \
  "$ROOT/tests/hlo/host_offload_jit_f_while_loops.hlo"
step "offload: host-offload" timeout 300 "$HMO" run "$ROOT/pipelines/host-offload.yaml" --execute \
  --backend gpu --check --seed 1 --results-dir "$RESULTS/offload-host-offload" \
  "$ROOT/tests/hlo/host_offload_jit_f_while_loops.hlo"

# The same after the cpu-fusion pass (from the CPU backend plugin): fused
# kLoop kernels inside while loops with host offloading.
step "check fused host_offload_jit_f_while_loops.hlo" timeout 300 "$HMO" run --passes=cpu-fusion --execute \
  --backend gpu --check --seed 1 "$ROOT/tests/hlo/host_offload_jit_f_while_loops.hlo"

step "pool benchmark" timeout 180 "$(find_binary hmo_gpu_host_memory_pool_bench)" --benchmark_min_time=0.05

echo
if [[ ${#FAILED[@]} -eq 0 ]]; then
  echo "=== all GPU checks passed"
else
  echo "=== ${#FAILED[@]} failed step(s):"
  printf '  %s\n' "${FAILED[@]}"
fi
exit ${#FAILED[@]}
