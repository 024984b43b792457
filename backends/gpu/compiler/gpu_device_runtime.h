#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_DEVICE_RUNTIME_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_DEVICE_RUNTIME_H_

// GpuDeviceRuntime: what GpuExecutable needs from a device, and nothing
// more: memory, kernel launches, asynchronous copies on two streams
// (compute and copy), events ordering one stream after the other, and
// transports for collectives: of a single rank, or of one rank among the
// replicas of GpuExecutable::ExecuteReplicated (one runtime per replica). GpuExecutable's thunk plan,
// stream ordering and memory placement are written against it once.
//
// Implementations:
//   - CudaDeviceRuntime (cuda_device_runtime.h): the CUDA runtime API on
//     one device (0 unless told); kernels are the module's PTX, GEMMs go to
//     cuBLAS, multi-rank collectives to NCCL.
//   - HostEmulatedDeviceRuntime (host_emulated_device_runtime.h): the same
//     kernels compiled for the host CPU, device memory in host memory, and a
//     copy stream that runs its copies as LATE as the events allow, so a
//     missing wait shows up as a wrong result instead of a lucky race; GEMMs
//     are the same column-major calls cuBLAS would get, made to OpenBLAS.
//     It is how the GPU backend is tested without a GPU.
//
// Streams execute their operations in the order they were enqueued; the two
// streams are unordered with respect to each other except through events:
// WaitEvent(s, e) makes everything enqueued on `s` afterwards run after the
// work recorded by `e`. A runtime is used by one host thread at a time,
// which calls BindToCallingThread first; runtimes of different replicas are
// used concurrently.

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpu/blas/gemm_descriptor.h"
#include "gpu/codegen/gpu_kernel_module.h"
#include "gpu/nccl/collective_thunk.h"
#include "hmo/collectives/mpi_collectives.h"

namespace hmo::gpu {

enum class GpuStream { kCompute, kCopy };

// An event handle of one runtime (index into its events).
using GpuEvent = int64_t;

// What the ranks of one multi-device clique share (CUDA: the NCCL library
// and communicator id; host emulation: the rendezvous of its threads). Made
// once by CreateClique on one of the clique's runtimes, then joined by
// every rank's runtime (of the same kind); it must outlive the transports
// joined to it.
class CollectiveClique {
 public:
  virtual ~CollectiveClique() = default;
  virtual int num_ranks() const = 0;
  // The name() of the runtimes that can join it.
  virtual std::string_view runtime_name() const = 0;
};

class GpuDeviceRuntime {
 public:
  virtual ~GpuDeviceRuntime() = default;

  // "cuda" or "host-emulation" (messages, the timeline).
  virtual std::string_view name() const = 0;

  // Makes the kernels of `kernels` launchable by their index in
  // kernels.kernels. Called once, before any Launch.
  virtual absl::Status LoadKernels(const GpuKernelModule& kernels) = 0;

  // Memory that lives until the runtime is destroyed: device memory, and
  // page-locked host memory that kernels can address (S(5)). Both are
  // aligned to at least 256 bytes.
  virtual absl::StatusOr<char*> AllocateDevice(int64_t bytes) = 0;
  virtual absl::StatusOr<char*> AllocatePinnedHost(int64_t bytes) = 0;
  // Device memory this runtime holds now, as the device reports it (CUDA:
  // used memory growth since the runtime was created); -1 when unknown.
  virtual int64_t DeviceBytesInUse() = 0;

  // Enqueues kernel `kernel` on the compute stream with `buffer_table` (a
  // device address) as its only argument.
  virtual absl::Status Launch(int64_t kernel, const LaunchDimensions& launch, char** buffer_table) = 0;
  // Whether Gemm works (CUDA: cuBLAS could be loaded for the device).
  virtual bool HasGemm() = 0;
  // Enqueues out = op(lhs) * op(rhs) (gemm_descriptor.h) on the compute
  // stream. UNAVAILABLE when !HasGemm(); callers then launch the dot's
  // kernel instead.
  virtual absl::Status Gemm(const GemmDescriptor& gemm, const void* lhs, const void* rhs, void* out) = 0;
  // Enqueues a copy of `bytes` bytes (any direction between device, pinned
  // and pageable host memory) on `stream`. A pageable host source may be
  // reused as soon as the call returns.
  virtual absl::Status CopyAsync(GpuStream stream, void* destination, const void* source, int64_t bytes) = 0;

  // Events. A timing event also records when its work completed, for
  // ElapsedSeconds.
  virtual absl::StatusOr<GpuEvent> CreateEvent(bool timing) = 0;
  virtual absl::Status RecordEvent(GpuEvent event, GpuStream stream) = 0;
  virtual absl::Status WaitEvent(GpuStream waiter, GpuEvent event) = 0;
  // Seconds from `start` to `end` (both timing events that have completed).
  virtual absl::StatusOr<double> ElapsedSeconds(GpuEvent start, GpuEvent end) = 0;

  // Blocks until everything enqueued on `stream` has run.
  virtual absl::Status Synchronize(GpuStream stream) = 0;

  // Makes the calling host thread the one that drives this runtime (CUDA:
  // cudaSetDevice to its device, which is per thread). Called by every
  // thread before it uses the runtime.
  virtual absl::Status BindToCallingThread() = 0;

  // Collectives of a clique of one, on the compute stream.
  virtual absl::StatusOr<std::unique_ptr<CollectiveTransport>> CreateSingleRankCollectives() = 0;
  // A clique of `num_ranks` (> 1) devices for runtimes of this kind
  // (CUDA: loads NCCL and makes the communicator id; UNAVAILABLE without
  // libnccl).
  virtual absl::StatusOr<std::shared_ptr<CollectiveClique>> CreateClique(int num_ranks) = 0;
  // Joins `clique` as `rank`, collectives on the compute stream. Collective:
  // every rank's runtime calls it concurrently, each from its own thread
  // (CUDA: ncclCommInitRank blocks until all ranks arrive). INVALID_ARGUMENT
  // for a clique of another runtime kind or a rank out of range.
  virtual absl::StatusOr<std::unique_ptr<CollectiveTransport>> JoinClique(CollectiveClique& clique, int rank) = 0;
  // The clique of an MPI launch, one device per process: joins it as
  // device mpi.process() of mpi.process_count(), collectives on the compute
  // stream. Collective over the launch: every process calls it once (host
  // emulation: plans go through `mpi`; CUDA: process 0 makes the NCCL id,
  // MPI hands it to every process, each joins with ncclCommInitRank).
  virtual absl::StatusOr<std::unique_ptr<CollectiveTransport>> JoinLaunch(
      collectives::MpiCollectives& mpi) = 0;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_DEVICE_RUNTIME_H_
