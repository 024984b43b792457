#include "gpu/compiler/cuda_device_runtime.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gpu/blas/cublas_gemm_runner.h"
#include "hmo/base/status_macros.h"
#include "hmo/collectives/launch_results.h"
#include "hmo/gpu/cuda_device_query.h"
#include "hmo/gpu/host_memory_allocator.h"
#include "hmo/gpu/pinned_host_memory_allocator.h"
#include "gpu/nccl/cuda_collective_transport.h"
#include "gpu/nccl/nccl_library.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>

#include "cuda_status.h"
#endif

namespace hmo::gpu {

#if HMO_GPU_HAVE_CUDA_RUNTIME
namespace {

#define HMO_CUDA_RETURN_IF_ERROR(expr) HMO_RETURN_IF_ERROR(CudaStatus((expr), #expr))

// The NCCL library and the communicator id every rank joins with.
class NcclClique final : public CollectiveClique {
 public:
  NcclClique(NcclLibrary nccl, nccl_abi::UniqueId id, int num_ranks)
      : nccl_(std::move(nccl)), id_(id), num_ranks_(num_ranks) {}
  int num_ranks() const override { return num_ranks_; }
  std::string_view runtime_name() const override { return "cuda"; }
  const NcclLibrary& nccl() const { return nccl_; }
  const nccl_abi::UniqueId& id() const { return id_; }

 private:
  NcclLibrary nccl_;
  nccl_abi::UniqueId id_;
  int num_ranks_;
};

class CudaDeviceRuntime final : public GpuDeviceRuntime {
 public:
  explicit CudaDeviceRuntime(int device) : device_(device) {}

  ~CudaDeviceRuntime() override {
    // Teardown cannot report errors; the process may also be exiting. The
    // destroying thread may have another device current.
    cudaSetDevice(device_);
    if (compute_ != nullptr) cudaStreamSynchronize(compute_);
    if (copy_ != nullptr) cudaStreamSynchronize(copy_);
    gemm_.reset();
    for (cudaEvent_t event : events_) cudaEventDestroy(event);
    for (void* pointer : device_allocations_) cudaFree(pointer);
    host_allocations_.clear();
    if (compute_ != nullptr) cudaStreamDestroy(compute_);
    if (copy_ != nullptr) cudaStreamDestroy(copy_);
    if (library_ != nullptr) cudaLibraryUnload(library_);
  }

  absl::Status Initialize() {
    HMO_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
    HMO_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
    HMO_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    baseline_used_ = UsedBytes();
    return absl::OkStatus();
  }

  std::string_view name() const override { return "cuda"; }

  absl::Status LoadKernels(const GpuKernelModule& kernels) override {
    if (kernels.kernels.empty()) return absl::OkStatus();
    HMO_CUDA_RETURN_IF_ERROR(
        cudaLibraryLoadData(&library_, kernels.ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    for (const GpuKernel& kernel : kernels.kernels) {
      cudaKernel_t function = nullptr;
      HMO_RETURN_IF_ERROR(CudaStatus(cudaLibraryGetKernel(&function, library_, kernel.name.c_str()),
                                     "cudaLibraryGetKernel(" + kernel.name + ")"));
      functions_.push_back(function);
      names_.push_back(kernel.name);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<char*> AllocateDevice(int64_t bytes) override {
    void* pointer = nullptr;
    HMO_CUDA_RETURN_IF_ERROR(cudaMalloc(&pointer, static_cast<size_t>(bytes)));
    device_allocations_.push_back(pointer);
    return static_cast<char*>(pointer);
  }

  absl::StatusOr<char*> AllocatePinnedHost(int64_t bytes) override {
    if (pinned_ == nullptr) {
      HMO_ASSIGN_OR_RETURN(pinned_, PinnedHostMemoryAllocator::Create());
    }
    HostAllocationOptions options;
    options.alignment = 256;
    HMO_ASSIGN_OR_RETURN(OwnedHostMemory memory, pinned_->Allocate(static_cast<size_t>(bytes), options));
    char* pointer = memory.as<char>();
    host_allocations_.push_back(std::move(memory));
    return pointer;
  }

  int64_t DeviceBytesInUse() override {
    const int64_t used = UsedBytes();
    return used < 0 || baseline_used_ < 0 ? -1 : used - baseline_used_;
  }

  absl::Status Launch(int64_t kernel, const LaunchDimensions& launch, char** buffer_table) override {
    if (kernel < 0 || kernel >= static_cast<int64_t>(functions_.size())) {
      return absl::InternalError("CUDA runtime: no loaded kernel " + std::to_string(kernel));
    }
    void* args[] = {&buffer_table};
    const dim3 grid(static_cast<unsigned>(launch.blocks));
    const dim3 block(static_cast<unsigned>(launch.threads_per_block));
    return CudaStatus(cudaLaunchKernel(reinterpret_cast<const void*>(functions_[kernel]), grid, block, args, 0,
                                       compute_),
                      "cudaLaunchKernel(" + names_[kernel] + ")");
  }

  bool HasGemm() override {
    if (!gemm_tried_) {
      gemm_tried_ = true;
      // Without cuBLAS the dots run as kernels.
      absl::StatusOr<std::unique_ptr<CublasGemmRunner>> runner = CublasGemmRunner::Create(compute_);
      if (runner.ok()) gemm_ = std::move(*runner);
    }
    return gemm_ != nullptr;
  }

  absl::Status Gemm(const GemmDescriptor& gemm, const void* lhs, const void* rhs, void* out) override {
    if (!HasGemm()) return absl::UnavailableError("CUDA runtime: cuBLAS is not available");
    return gemm_->Run(gemm, lhs, rhs, out);
  }

  absl::Status CopyAsync(GpuStream stream, void* destination, const void* source, int64_t bytes) override {
    HMO_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(destination, source, static_cast<size_t>(bytes), cudaMemcpyDefault, Stream(stream)));
    return absl::OkStatus();
  }

  absl::StatusOr<GpuEvent> CreateEvent(bool timing) override {
    cudaEvent_t event = nullptr;
    HMO_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, timing ? cudaEventDefault : cudaEventDisableTiming));
    events_.push_back(event);
    return static_cast<GpuEvent>(events_.size() - 1);
  }

  absl::Status RecordEvent(GpuEvent event, GpuStream stream) override {
    HMO_ASSIGN_OR_RETURN(cudaEvent_t e, Event(event));
    HMO_CUDA_RETURN_IF_ERROR(cudaEventRecord(e, Stream(stream)));
    return absl::OkStatus();
  }

  absl::Status WaitEvent(GpuStream waiter, GpuEvent event) override {
    HMO_ASSIGN_OR_RETURN(cudaEvent_t e, Event(event));
    HMO_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(Stream(waiter), e, 0));
    return absl::OkStatus();
  }

  absl::StatusOr<double> ElapsedSeconds(GpuEvent start, GpuEvent end) override {
    HMO_ASSIGN_OR_RETURN(cudaEvent_t a, Event(start));
    HMO_ASSIGN_OR_RETURN(cudaEvent_t b, Event(end));
    float ms = 0;
    HMO_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, a, b));
    return static_cast<double>(ms) * 1e-3;
  }

  absl::Status Synchronize(GpuStream stream) override {
    HMO_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(Stream(stream)));
    return absl::OkStatus();
  }

  absl::Status BindToCallingThread() override {
    HMO_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<CollectiveTransport>> CreateSingleRankCollectives() override {
    HMO_ASSIGN_OR_RETURN(std::unique_ptr<CudaCollectiveTransport> transport,
                         CudaCollectiveTransport::CreateSingleRank(compute_));
    return std::unique_ptr<CollectiveTransport>(std::move(transport));
  }

  absl::StatusOr<std::shared_ptr<CollectiveClique>> CreateClique(int num_ranks) override {
    if (num_ranks < 1) return absl::InvalidArgumentError("CUDA runtime: a clique needs at least one rank");
    HMO_ASSIGN_OR_RETURN(NcclLibrary nccl, NcclLibrary::Load());
    nccl_abi::UniqueId id{};
    HMO_RETURN_IF_ERROR(nccl.Check(nccl.functions().GetUniqueId(&id), "ncclGetUniqueId"));
    return std::shared_ptr<CollectiveClique>(std::make_shared<NcclClique>(std::move(nccl), id, num_ranks));
  }

  absl::StatusOr<std::unique_ptr<CollectiveTransport>> JoinClique(CollectiveClique& clique, int rank) override {
    if (clique.runtime_name() != name()) {
      return absl::InvalidArgumentError("CUDA runtime: cannot join a clique of the " +
                                        std::string(clique.runtime_name()) + " runtime");
    }
    const auto& nccl = static_cast<const NcclClique&>(clique);
    // ncclCommInitRank binds the communicator to the current device.
    HMO_RETURN_IF_ERROR(BindToCallingThread());
    HMO_ASSIGN_OR_RETURN(std::unique_ptr<CudaCollectiveTransport> transport,
                         CudaCollectiveTransport::Create(nccl.nccl(), nccl.num_ranks(), rank, nccl.id(), compute_));
    return std::unique_ptr<CollectiveTransport>(std::move(transport));
  }

  absl::StatusOr<std::unique_ptr<CollectiveTransport>> JoinLaunch(
      collectives::MpiCollectives& mpi) override {
    // Every process says whether it can join (libnccl loaded; process 0:
    // the id made) before any waits in ncclCommInitRank for a peer that
    // never comes.
    absl::StatusOr<NcclLibrary> nccl = NcclLibrary::Load();
    nccl_abi::UniqueId id{};
    absl::Status ready = nccl.status();
    if (ready.ok() && mpi.process() == 0) {
      ready = nccl->Check(nccl->functions().GetUniqueId(&id), "ncclGetUniqueId");
    }
    HMO_RETURN_IF_ERROR(
        collectives::AgreeAcrossLaunch(mpi, ready, "loading NCCL or making its id"));
    // Process 0's id reaches every process (the others send zeros).
    HMO_ASSIGN_OR_RETURN(std::vector<std::vector<char>> ids,
                         mpi.AllGather(absl::Span<const char>(id.internal, sizeof(id.internal))));
    std::memcpy(id.internal, ids.front().data(), sizeof(id.internal));
    // The transport keeps a pointer to the library: it lives with the runtime.
    launch_nccl_ = std::make_unique<NcclLibrary>(*std::move(nccl));
    // ncclCommInitRank binds the communicator to the current device.
    HMO_RETURN_IF_ERROR(BindToCallingThread());
    HMO_ASSIGN_OR_RETURN(std::unique_ptr<CudaCollectiveTransport> transport,
                         CudaCollectiveTransport::Create(*launch_nccl_, mpi.process_count(),
                                                         mpi.process(), id, compute_));
    return std::unique_ptr<CollectiveTransport>(std::move(transport));
  }

 private:
  cudaStream_t Stream(GpuStream stream) const { return stream == GpuStream::kCompute ? compute_ : copy_; }

  absl::StatusOr<cudaEvent_t> Event(GpuEvent event) const {
    if (event < 0 || event >= static_cast<GpuEvent>(events_.size())) {
      return absl::InternalError("CUDA runtime: unknown event " + std::to_string(event));
    }
    return events_[event];
  }

  static int64_t UsedBytes() {
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return -1;
    return static_cast<int64_t>(total_bytes - free_bytes);
  }

  int device_;
  cudaLibrary_t library_ = nullptr;
  std::vector<cudaKernel_t> functions_;
  std::vector<std::string> names_;
  cudaStream_t compute_ = nullptr;
  cudaStream_t copy_ = nullptr;
  std::vector<cudaEvent_t> events_;
  std::vector<void*> device_allocations_;
  std::unique_ptr<PinnedHostMemoryAllocator> pinned_;
  std::vector<OwnedHostMemory> host_allocations_;
  int64_t baseline_used_ = -1;
  bool gemm_tried_ = false;
  std::unique_ptr<CublasGemmRunner> gemm_;
  // JoinLaunch's NCCL, which its transport uses.
  std::unique_ptr<NcclLibrary> launch_nccl_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<GpuDeviceRuntime>> CreateCudaDeviceRuntime(int device) {
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) return absl::UnavailableError("no CUDA device: " + std::string(devices.status().message()));
  if (device < 0 || device >= *devices) {
    return absl::UnavailableError("no CUDA device " + std::to_string(device) + ": " + std::to_string(*devices) +
                                  " device(s) present");
  }
  auto runtime = std::make_unique<CudaDeviceRuntime>(device);
  HMO_RETURN_IF_ERROR(runtime->Initialize());
  return std::unique_ptr<GpuDeviceRuntime>(std::move(runtime));
}

#else  // !HMO_GPU_HAVE_CUDA_RUNTIME

absl::StatusOr<std::unique_ptr<GpuDeviceRuntime>> CreateCudaDeviceRuntime(int /*device*/) {
  return absl::UnavailableError("no CUDA device: hmo was built without the CUDA runtime");
}

#endif

}  // namespace hmo::gpu
