#ifndef HMO_BACKENDS_GPU_COMPILER_CUDA_DEVICE_RUNTIME_H_
#define HMO_BACKENDS_GPU_COMPILER_CUDA_DEVICE_RUNTIME_H_

// CudaDeviceRuntime: GpuDeviceRuntime on one CUDA device through the CUDA
// runtime API only (libcuda is never linked):
//   - kernels: the module's PTX loaded with cudaLibraryLoadData, looked up
//     with cudaLibraryGetKernel, launched with cudaLaunchKernel;
//   - two non-blocking streams (compute, copy), cudaEvent_t events;
//   - device memory from cudaMalloc, pinned host memory from
//     PinnedHostMemoryAllocator (cudaHostAlloc, portable + mapped through
//     unified addressing);
//   - DeviceBytesInUse: cudaMemGetInfo's used bytes minus those used when
//     the runtime was created (the whole device's view: other processes'
//     allocations in between count too);
//   - collectives: a clique of one is cudaMemcpyAsync / cudaMemsetAsync; a
//     clique of several devices is NCCL (CreateClique loads libnccl and
//     makes the communicator id; JoinClique runs ncclCommInitRank for the
//     rank on this device's compute stream); the clique of an MPI launch
//     (JoinLaunch) is one NCCL communicator of its processes, process 0's
//     id handed to all over MPI.
// Create is UNAVAILABLE "no CUDA device: <reason>" without a device or in a
// build without the CUDA runtime, and "no CUDA device <n>: <count> device(s)
// present" for an ordinal beyond the devices.

#include <memory>

#include "absl/status/statusor.h"
#include "gpu/compiler/gpu_device_runtime.h"

namespace hmo::gpu {

absl::StatusOr<std::unique_ptr<GpuDeviceRuntime>> CreateCudaDeviceRuntime(int device = 0);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_CUDA_DEVICE_RUNTIME_H_
