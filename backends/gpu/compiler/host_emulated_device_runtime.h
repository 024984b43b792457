#ifndef HMO_BACKENDS_GPU_COMPILER_HOST_EMULATED_DEVICE_RUNTIME_H_
#define HMO_BACKENDS_GPU_COMPILER_HOST_EMULATED_DEVICE_RUNTIME_H_

// HostEmulatedDeviceRuntime: a GpuDeviceRuntime on the host CPU, so that
// everything of the GPU backend but the CUDA calls themselves (kernel IR,
// thunk plan, memory placement, stream ordering) runs and is checked on
// machines without a GPU, CI included.
//
//   - Kernels: a HostKernelLibrary (the same kernel IR as the PTX, compiled
//     for the host), run on the calling thread. The library may be shared by
//     the runtimes of several replicas (its Run is serialized).
//   - Memory: device and pinned memory are 256-byte aligned host memory;
//     DeviceBytesInUse is what AllocateDevice handed out.
//   - Compute stream: eager; every operation runs when it is enqueued.
//   - Copy stream: lazy; its operations run only when the compute stream
//     waits for an event recorded after them, or at Synchronize(kCopy).
//     That is one legal schedule of a real device (a copy may take
//     arbitrarily long), and the most hostile one: a kernel that reads a
//     copy's destination without waiting sees the old bytes, and one that
//     overwrites a copy's source before the copy has run changes what the
//     copy moves, so a missing event is a wrong result, not a lucky race.
//   - Timing events record the host clock when their stream reaches them.
//   - Collectives: a clique of one is copies; a clique of several replicas
//     (CreateClique / JoinClique) is a HostCollectiveTransport per replica
//     over one shared rendezvous (the replicas are host threads); the
//     clique of an MPI launch (JoinLaunch) runs the plans through
//     MpiCollectives (the replicas are processes).

#include <memory>

#include "absl/status/statusor.h"
#include "gpu/compiler/gpu_device_runtime.h"
#include "gpu/compiler/host_kernel_library.h"

namespace hmo::gpu {

absl::StatusOr<std::unique_ptr<GpuDeviceRuntime>> CreateHostEmulatedDeviceRuntime(
    std::shared_ptr<const HostKernelLibrary> kernels);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_HOST_EMULATED_DEVICE_RUNTIME_H_
