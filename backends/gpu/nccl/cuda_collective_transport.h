#ifndef HMO_BACKENDS_GPU_NCCL_CUDA_COLLECTIVE_TRANSPORT_H_
#define HMO_BACKENDS_GPU_NCCL_CUDA_COLLECTIVE_TRANSPORT_H_

// Collectives on device memory: copies and zero-fills are cudaMemcpyAsync /
// cudaMemsetAsync on the rank's stream; multi-rank operations are NCCL calls
// (nccl_library.h) on the same stream. A clique of one needs no NCCL at all
// (RunCollective turns every operation into a copy or a zero-fill), so
// CreateSingleRank works where libnccl is not installed.
//
// NCCL element types: s8, u8, s32, u32, s64, u64, f16, bf16, f32, f64;
// UNIMPLEMENTED for the others (pred, s16, u16, complex).

#include <memory>

#include "absl/status/statusor.h"
#include "gpu/nccl/collective_thunk.h"
#include "gpu/nccl/nccl_library.h"

namespace hmo::gpu {

class CudaCollectiveTransport final : public CollectiveTransport {
 public:
  // `stream` is a cudaStream_t (null: the legacy default stream).
  // UNAVAILABLE without the CUDA runtime or a device.
  static absl::StatusOr<std::unique_ptr<CudaCollectiveTransport>> CreateSingleRank(void* stream);
  // Joins the communicator `id` (made by ncclGetUniqueId on one rank and
  // handed to all) as `rank` of `num_ranks` (ncclCommInitRank; collective:
  // every rank must call it concurrently).
  static absl::StatusOr<std::unique_ptr<CudaCollectiveTransport>> Create(const NcclLibrary& nccl, int num_ranks,
                                                                        int rank, const nccl_abi::UniqueId& id,
                                                                        void* stream);
  ~CudaCollectiveTransport() override;

  int rank() const override { return rank_; }
  int num_ranks() const override { return num_ranks_; }
  absl::Status Copy(void* destination, const void* source, size_t bytes) override;
  absl::Status Zero(void* destination, size_t bytes) override;
  absl::Status AllReduce(const void* send, void* receive, int64_t count, HostElementType type,
                         ReductionKind reduction) override;
  absl::Status AllGather(const void* send, void* receive, int64_t send_count, HostElementType type) override;
  absl::Status ReduceScatter(const void* send, void* receive, int64_t receive_count, HostElementType type,
                             ReductionKind reduction) override;
  absl::Status SendReceive(const void* send, int target, void* receive, int source, int64_t count,
                           HostElementType type) override;

  // Waits for the stream (tests, and callers reading results on the host).
  absl::Status Synchronize();

 private:
  CudaCollectiveTransport(const NcclLibrary* nccl, nccl_abi::Comm comm, int rank, int num_ranks, void* stream)
      : nccl_(nccl), comm_(comm), rank_(rank), num_ranks_(num_ranks), stream_(stream) {}
  absl::Status RequireNccl(const char* what) const;

  const NcclLibrary* nccl_;  // null for a clique of one
  nccl_abi::Comm comm_;
  int rank_;
  int num_ranks_;
  void* stream_;
};

// NCCL's data type for `type`, or UNIMPLEMENTED naming it.
absl::StatusOr<nccl_abi::DataType> NcclDataType(HostElementType type);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_NCCL_CUDA_COLLECTIVE_TRANSPORT_H_
