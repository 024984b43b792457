#include "hmo/gpu/cuda_collective_memory_backend.h"

#include "absl/strings/str_cat.h"
#include "hmo/gpu/cuda_device_query.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda_status.h"
#include "hmo/gpu/symmetric_layout.h"
#include "spdlog/spdlog.h"
#endif

namespace hmo::gpu {

#if HMO_GPU_HAVE_CUDA_RUNTIME
namespace {

// Offsets inside a heap; cudaMalloc itself returns 256-byte aligned memory.
constexpr uint64_t kCudaSymmetricAlignment = 256;

// Restores the calling thread's current device on destruction.
class CurrentDeviceRestorer {
 public:
  CurrentDeviceRestorer() { has_previous_ = cudaGetDevice(&previous_) == cudaSuccess; }
  ~CurrentDeviceRestorer() {
    if (has_previous_) cudaSetDevice(previous_);
  }
  CurrentDeviceRestorer(const CurrentDeviceRestorer&) = delete;
  CurrentDeviceRestorer& operator=(const CurrentDeviceRestorer&) = delete;

 private:
  int previous_ = 0;
  bool has_previous_ = false;
};

class CudaCollectiveMemorySet final : public CollectiveMemorySet {
 public:
  CudaCollectiveMemorySet(CliqueKey clique, std::vector<CollectiveMemoryRequest> requests,
                          SymmetricLayout layout)
      : clique(std::move(clique)),
        requests(std::move(requests)),
        layout(std::move(layout)),
        heaps(this->clique.num_ranks(), nullptr) {}

  ~CudaCollectiveMemorySet() override {
    CurrentDeviceRestorer restorer;
    for (int rank = 0; rank < clique.num_ranks(); ++rank) {
      if (heaps[rank] == nullptr) continue;
      const int device = static_cast<int>(clique.DeviceAt(rank));
      cudaError_t error = cudaSetDevice(device);
      if (error == cudaSuccess) error = cudaFree(heaps[rank]);
      if (error != cudaSuccess) {
        spdlog::error("freeing the symmetric heap of device {}: {}", device,
                      cudaGetErrorString(error));
      }
    }
  }

  const CliqueKey clique;
  const std::vector<CollectiveMemoryRequest> requests;
  const SymmetricLayout layout;
  std::vector<void*> heaps;  // by rank
};

class CudaCollectiveMemoryBackend final : public CollectiveMemoryBackend {
 public:
  absl::string_view name() const override { return "cuda"; }

  absl::StatusOr<std::shared_ptr<CollectiveMemorySet>> CreateShared(
      const CliqueKey& clique, absl::Span<const CollectiveMemoryRequest> requests) override {
    for (const CollectiveMemoryRequest& request : requests) {
      if (request.kind == CollectiveMemoryKind::kMulticast) {
        return absl::UnimplementedError(absl::StrCat(
            "CUDA multicast memory (", request.ToString(),
            ") needs the driver multicast API, which hmo does not use yet"));
      }
    }
    absl::StatusOr<int> device_count = CudaDeviceCount();
    if (!device_count.ok()) return device_count.status();
    for (GlobalDeviceId device : clique.devices()) {
      if (device >= *device_count) {
        return absl::InvalidArgumentError(
            absl::StrCat("device ", device, " of ", clique.ToString(),
                         " is not a CUDA device of this process (", *device_count, " visible)"));
      }
    }
    absl::StatusOr<SymmetricLayout> layout =
        LayOutSymmetricHeap(requests, kCudaSymmetricAlignment);
    if (!layout.ok()) return layout.status();

    auto set = std::make_shared<CudaCollectiveMemorySet>(
        clique, std::vector<CollectiveMemoryRequest>(requests.begin(), requests.end()),
        *std::move(layout));
    CurrentDeviceRestorer restorer;
    const size_t heap_size = set->layout.heap_size;
    for (int rank = 0; rank < clique.num_ranks() && heap_size > 0; ++rank) {
      const int device = static_cast<int>(clique.DeviceAt(rank));
      absl::Status status = CudaStatus(cudaSetDevice(device), absl::StrCat("cudaSetDevice(", device, ")"));
      if (status.ok()) {
        status = CudaStatus(cudaMalloc(&set->heaps[rank], heap_size),
                            absl::StrCat("cudaMalloc(", heap_size, " bytes) on device ", device));
      }
      if (status.ok()) {
        status = CudaStatus(cudaMemset(set->heaps[rank], 0, heap_size),
                            absl::StrCat("zeroing the symmetric heap of device ", device));
      }
      if (!status.ok()) return status;  // `set` frees what was allocated
    }
    absl::Status peers = EnablePeerAccess(clique);
    if (!peers.ok()) return peers;
    return set;
  }

  absl::StatusOr<std::vector<CollectiveAllocation>> Map(const CollectiveMemorySet& set,
                                                        const CliqueKey& clique,
                                                        int rank) override {
    const auto* cuda_set = dynamic_cast<const CudaCollectiveMemorySet*>(&set);
    if (cuda_set == nullptr) {
      return absl::InvalidArgumentError("collective memory set was not made by the CUDA backend");
    }
    if (cuda_set->clique != clique || rank < 0 || rank >= clique.num_ranks()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot map the collective memory of ",
                                                     cuda_set->clique.ToString(), " for rank ",
                                                     rank, " of ", clique.ToString()));
    }
    std::vector<CollectiveAllocation> views;
    for (size_t i = 0; i < cuda_set->requests.size(); ++i) {
      CollectiveAllocation view;
      view.request = cuda_set->requests[i];
      view.offset = cuda_set->layout.offsets[i];
      for (void* heap : cuda_set->heaps) {
        view.peers.push_back(static_cast<std::byte*>(heap) + view.offset);
      }
      view.local = view.peers[rank];
      views.push_back(std::move(view));
    }
    return views;
  }

  absl::Status MulticastWrite(const CollectiveAllocation& allocation, uint64_t /*offset*/,
                              const void* /*data*/, size_t /*size*/) override {
    return absl::UnimplementedError(absl::StrCat(
        "CUDA multicast write to ", allocation.request.ToString(),
        ": multicast memory needs the driver multicast API, which hmo does not use yet"));
  }

 private:
  // Lets every device of the clique access every other's memory.
  static absl::Status EnablePeerAccess(const CliqueKey& clique) {
    for (GlobalDeviceId a : clique.devices()) {
      for (GlobalDeviceId b : clique.devices()) {
        if (a == b) continue;
        int can_access = 0;
        absl::Status status =
            CudaStatus(cudaDeviceCanAccessPeer(&can_access, static_cast<int>(a), static_cast<int>(b)),
                       absl::StrCat("cudaDeviceCanAccessPeer(", a, ", ", b, ")"));
        if (!status.ok()) return status;
        if (!can_access) {
          return absl::UnavailableError(absl::StrCat("device ", a, " cannot access the memory of device ",
                                                     b, " (no peer access) in ", clique.ToString()));
        }
        status = CudaStatus(cudaSetDevice(static_cast<int>(a)), absl::StrCat("cudaSetDevice(", a, ")"));
        if (!status.ok()) return status;
        cudaError_t error = cudaDeviceEnablePeerAccess(static_cast<int>(b), 0);
        if (error == cudaErrorPeerAccessAlreadyEnabled) {
          cudaGetLastError();  // not an error here; clear it
          continue;
        }
        status = CudaStatus(error, absl::StrCat("cudaDeviceEnablePeerAccess(", a, " -> ", b, ")"));
        if (!status.ok()) return status;
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace
#endif  // HMO_GPU_HAVE_CUDA_RUNTIME

absl::StatusOr<std::unique_ptr<CollectiveMemoryBackend>> CreateCudaCollectiveMemoryBackend() {
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) {
    return absl::UnavailableError(absl::StrCat("CUDA collective memory needs a CUDA device: ",
                                               devices.status().message()));
  }
#if HMO_GPU_HAVE_CUDA_RUNTIME
  return std::unique_ptr<CollectiveMemoryBackend>(new CudaCollectiveMemoryBackend());
#else
  return absl::UnavailableError("hmo was built without the CUDA runtime");
#endif
}

}  // namespace hmo::gpu
