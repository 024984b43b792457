#!/usr/bin/env bash
# Device checks of the GPU backend (issue 8), for the days an NVIDIA GPU
# (H200) is lent. NOT part of ctest: run it by hand on the device machine,
#   tests/gpu/run_gpu_checks.sh            (from the repository root)
# It configures and builds the GPU targets, runs the GPU test binaries
# (their device tests skip on machines without a GPU and run here), runs
# `hmo run --execute --backend gpu --check` on real and small modules, the
# SPMD corpus on 4 GPUs, one program of it as the 4 processes of an MPI
# launch (each skipped, and listed as skipped, with fewer GPUs or without
# mpirun), and the pinned host memory pool benchmark, printing everything. Exit status:
# the number of failed steps (0 = all passed; skips are not failures).
#
# The device machine cannot build hmo (no LLVM, Abseil, ... and no
# network): make a prebuilt bundle here first with
# tests/gpu/make_device_bundle.sh and carry build-device-bundle with the
# run. When the bundle is there this script unpacks it at its anchor
# (/work/main/build; the anchor is linked to this checkout when missing)
# and builds nothing.
#
# Environment: HMO_GPU_BUNDLE (default
# build-device-bundle/hmo-gpu-bundle.tar.xz), HMO_GPU_BUILD_DIR (default
# build-gpu-device), JOBS (default: all cores), CMAKE (default: cmake; use
# the same cmake that configured an existing build dir, or it is
# regenerated from scratch), HMO_GPU_SKIP_BUILD=1 to reuse an existing
# build.

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

BUNDLE=${HMO_GPU_BUNDLE:-$ROOT/build-device-bundle/hmo-gpu-bundle.tar.xz}
if [[ -f $BUNDLE ]]; then
  ANCHOR=/work/main
  if [[ ! -e $ANCHOR ]]; then
    mkdir -p "$(dirname "$ANCHOR")"
    ln -s "$ROOT" "$ANCHOR"
  fi
  echo "=== unpacking $BUNDLE at $ANCHOR"
  tar -C "$ANCHOR" -xJf "$BUNDLE" || { echo "cannot unpack the bundle"; exit 1; }
  cat "$ANCHOR/build/BUNDLE.txt" | head -3
  BUILD=$ANCHOR/build
  ROOT=$ANCHOR
  HMO_GPU_SKIP_BUILD=1
  export HMO_LIBDEVICE_PATH=$BUILD/share/libdevice.10.bc
  # cuBLAS and NCCL: the toolkit's, else the NVIDIA Python wheels'.
  WHEEL_LIBS=$(python3 - << 'PYEOF' 2> /dev/null
import glob, importlib.util, os
spec = importlib.util.find_spec("nvidia")
for root in (spec.submodule_search_locations if spec else []):
    for lib in sorted(glob.glob(os.path.join(root, "*", "lib")) + glob.glob(os.path.join(root, "*", "*", "lib"))):
        if glob.glob(os.path.join(lib, "libcublas.so*")) or glob.glob(os.path.join(lib, "libnccl.so*")):
            print(lib)
PYEOF
)
  for lib in $WHEEL_LIBS; do LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$lib; done
  export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
fi

echo "=== device"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1 || echo "nvidia-smi unavailable"
ls -l /usr/local/cuda/bin/ptxas /usr/local/cuda/nvvm/libdevice/libdevice.10.bc 2>&1

if [[ "${HMO_GPU_SKIP_BUILD:-0}" != 1 ]]; then
  GENERATOR=()
  command -v ninja > /dev/null && GENERATOR=(-G Ninja)
  step configure "$CMAKE" -S "$ROOT" -B "$BUILD" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  step build "$CMAKE" --build "$BUILD" -j "$JOBS" --target \
    hmo hmo_gpu_backend hmo_gpu_runtime_tests hmo_gpu_codegen_tests hmo_gpu_compiler_tests \
    hmo_gpu_nccl_tests hmo_gpu_blas_tests hmo_gpu_host_memory_pool_bench hmo_cpu_backend
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

for tests in hmo_gpu_runtime_tests hmo_gpu_codegen_tests hmo_gpu_compiler_tests hmo_gpu_nccl_tests hmo_gpu_blas_tests; do
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
              "$ROOT/tests/hlo/graphsage_tf.hlo" "$ROOT/tests/hlo/ssd_mobilenet_tf.hlo"; do
  name=$(basename "$module" .hlo)
  step "check $name" timeout 300 "$HMO" run --passes=memory-report --execute --backend gpu --check \
    --seed 1 --results-dir "$RESULTS/$name" "$module"
done

# Host offload: the device arena with and without the host-offload
# pipeline, and the compute/copy stream timelines (copies overlapped).
step "offload benchmark" env OUT_DIR="$RESULTS/offload" timeout 300 "$ROOT/bench/gpu_offload/run_offload_bench.sh" \
  "$BUILD" gpu

# The same after the cpu-fusion pass (from the CPU backend plugin): fused
# kLoop kernels inside while loops with host offloading.
step "check fused host_offload_jit_f_while_loops.hlo" timeout 300 "$HMO" run --passes=cpu-fusion --execute \
  --backend gpu --check --seed 1 "$ROOT/tests/hlo/host_offload_jit_f_while_loops.hlo"

# The SPMD corpus (tests/corpus_spmd/<program>/: XLA's partitioned modules,
# num_partitions=4) on 4 CUDA devices: collectives of replica sub-groups
# through NCCL (a communicator split per group), checked against hmo's
# reference evaluator; the command lines are jax_corpus_spmd_test.cc's.
# Machines with fewer GPUs skip them (counted below, not failures).
GPUS=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')
SKIPPED=()
for dir in "$ROOT"/tests/corpus_spmd/*/; do
  dir=${dir%/}
  program=$(basename "$dir")
  dump=$(ls "$dir"/module_*.cpu_after_optimizations.txt 2> /dev/null | head -1)
  [[ -n $dump ]] || continue
  if [[ $GPUS -lt 4 ]]; then
    echo "=== spmd $program: skipped: needs 4 GPUs, found $GPUS"
    SKIPPED+=("spmd $program (needs 4 GPUs, found $GPUS)")
    continue
  fi
  step "spmd $program" timeout 300 "$HMO" run "$ROOT/pipelines/memory-scheduler.yaml" "$dump" --execute \
    --backend gpu --inputs "$dir" --results-dir "$RESULTS/spmd_$program" --check
done

# One SPMD program across the processes of an MPI launch: process k runs
# replica k on its machine's GPU k, the NCCL communicator's id handed out
# over MPI (process 0 makes it); every process gathers every device's
# results and process 0 checks them. The command line is
# jax_corpus_spmd_test.cc's (EveryDeviceMatchesXlaAcrossMpiProcesses).
MPI_PROGRAM_DIR=$(ls -d "$ROOT"/tests/corpus_spmd/*/ 2> /dev/null | head -1)
MPI_PROGRAM_DIR=${MPI_PROGRAM_DIR%/}
MPI_DUMP=$(ls "$MPI_PROGRAM_DIR"/module_*.cpu_after_optimizations.txt 2> /dev/null | head -1)
if [[ $GPUS -lt 4 ]]; then
  echo "=== spmd mpirun: skipped: needs 4 GPUs, found $GPUS"
  SKIPPED+=("spmd mpirun (needs 4 GPUs, found $GPUS)")
elif ! command -v mpirun > /dev/null; then
  echo "=== spmd mpirun: skipped: mpirun not found"
  SKIPPED+=("spmd mpirun (mpirun not found)")
elif [[ -z $MPI_DUMP ]]; then
  echo "=== spmd mpirun: skipped: no SPMD corpus program"
  SKIPPED+=("spmd mpirun (no SPMD corpus program)")
else
  program=$(basename "$MPI_PROGRAM_DIR")
  step "spmd mpirun $program" timeout 300 mpirun --allow-run-as-root --oversubscribe \
    --mca btl_vader_single_copy_mechanism none -n 4 "$HMO" run "$ROOT/pipelines/memory-scheduler.yaml" \
    "$MPI_DUMP" --execute --backend gpu --inputs "$MPI_PROGRAM_DIR" \
    --results-dir "$RESULTS/spmd_mpirun_$program" --check
fi

step "pool benchmark" timeout 180 "$(find_binary hmo_gpu_host_memory_pool_bench)" --benchmark_min_time=0.05

echo
if [[ ${#SKIPPED[@]} -gt 0 ]]; then
  echo "=== ${#SKIPPED[@]} skipped step(s):"
  printf '  %s\n' "${SKIPPED[@]}"
fi
if [[ ${#FAILED[@]} -eq 0 ]]; then
  echo "=== all GPU checks passed"
else
  echo "=== ${#FAILED[@]} failed step(s):"
  printf '  %s\n' "${FAILED[@]}"
fi
exit ${#FAILED[@]}
