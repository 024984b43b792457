#ifndef HMO_BACKENDS_GPU_NCCL_CUDA_COLLECTIVE_TRANSPORT_H_
#define HMO_BACKENDS_GPU_NCCL_CUDA_COLLECTIVE_TRANSPORT_H_

// Collectives on device memory: copies and zero-fills are cudaMemcpyAsync /
// cudaMemsetAsync on the rank's stream (device_memory_ops.h); multi-rank
// operations are NCCL calls (nccl_library.h) on the same stream. A clique
// of one needs no NCCL at all (RunCollective turns every operation into a
// copy or a zero-fill), so CreateSingleRank works where libnccl is not
// installed.
//
// A transport with an NCCL communicator (Create: rank r of the clique is
// device r of the executable's grid) also runs collective plans
// (hmo/collectives/collective_plan.h), the way InProcessCollectives runs
// them on host memory, but with NCCL moving the bytes:
//   - each plan's replica groups get a communicator of their own, split
//     from the clique's once per transport (nccl_group_communicators.h:
//     ncclCommSplit, NCCL >= 2.18; a single group of all devices in order
//     is the clique's own); a device alone in its group copies;
//   - all-reduce: ncclAllReduce per operand inside one ncclGroupStart/End;
//   - all-gather / reduce-scatter of the split [outer][ranks][chunk]:
//     ncclAllGather / ncclReduceScatter directly for outer == 1, else
//     through scratch laid out [ranks][outer][chunk] and strided copies
//     (cudaMemcpy2DAsync);
//   - all-to-all: grouped ncclSend / ncclRecv with every rank of the group
//     (itself included), staged like all-gather for outer > 1;
//   - collective-permute: grouped ncclSend / ncclRecv with the plan's peers
//     on the clique's communicator, zeros without a source (as XLA);
//   - collective-broadcast: ncclBroadcast from the group's rank 0;
//   - replica-id / partition-id: the id copied from host memory.
// Receive buffers that overlap a send buffer are written through scratch
// and copied in afterwards (an all-reduce in place is left to NCCL).
// Scratch is device memory of the transport, grown on demand and reused:
// every use is ordered on the rank's stream.
//
// NCCL element types: s8, u8, s32, u32, s64, u64, f16, bf16, f32, f64
// (and pred for and / or reductions, as u8 min / max); reductions of the
// others (s16, u16, complex) are UNIMPLEMENTED naming the type. Moving
// bytes (gather, all-to-all, permute, broadcast) works for every type.

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "gpu/nccl/collective_thunk.h"
#include "gpu/nccl/device_memory_ops.h"
#include "gpu/nccl/nccl_group_communicators.h"
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
  // A transport on the communicator `comm` (not destroyed by it) whose
  // device memory is `memory`: tests, with a fake NCCL function table and
  // host memory, check which NCCL calls a plan makes.
  static std::unique_ptr<CudaCollectiveTransport> CreateForTesting(
      const NcclLibrary& nccl, nccl_abi::Comm comm, int rank, int num_ranks,
      std::unique_ptr<DeviceMemoryOps> memory);
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

  // With an NCCL communicator (a clique of one keeps RunCollective's
  // copies, which need no libnccl).
  bool RunsPlans() const override { return comm_ != nullptr; }
  // Runs `plan` as device rank() (see the top of this file).
  absl::Status RunPlan(const collectives::CollectivePlan& plan, absl::Span<const void* const> send,
                       absl::Span<void* const> receive) override;

  // Waits for the stream (tests, and callers reading results on the host).
  absl::Status Synchronize();

 private:
  CudaCollectiveTransport(const NcclLibrary* nccl, nccl_abi::Comm comm, bool owns_comm, int rank,
                          int num_ranks, void* stream, std::unique_ptr<DeviceMemoryOps> memory);
  absl::Status RequireNccl(const char* what) const;
  // Runs `calls` between ncclGroupStart and ncclGroupEnd (which is called
  // even when a call fails).
  absl::Status Grouped(const std::function<absl::Status()>& calls);
  // At least `bytes` of scratch, valid until the next call.
  absl::StatusOr<char*> Scratch(size_t bytes);
  // The multi-rank part of RunPlan: `out` are the receive buffers or their
  // staging; the device's group has `group_size` ranks on `comm`.
  absl::Status RunPlanOnCommunicator(const collectives::CollectivePlan& plan,
                                     absl::Span<const void* const> send,
                                     absl::Span<char* const> out, nccl_abi::Comm comm,
                                     int group_size, char* staging);

  const NcclLibrary* nccl_;  // null for a clique of one
  nccl_abi::Comm comm_;
  bool owns_comm_;
  int rank_;
  int num_ranks_;
  void* stream_;
  std::unique_ptr<DeviceMemoryOps> memory_;
  std::unique_ptr<NcclGroupCommunicators> groups_;  // with comm_
  char* scratch_ = nullptr;
  size_t scratch_bytes_ = 0;
  // replica-id's and partition-id's sources: each constant for the device
  // (one grid per executable), and alive while copies reading them may be
  // pending.
  uint32_t replica_id_ = 0;
  uint32_t partition_id_ = 0;
};

// NCCL's data type for `type` (as the host runtime or the HLO names it),
// or UNIMPLEMENTED naming it.
absl::StatusOr<nccl_abi::DataType> NcclDataType(HostElementType type);
absl::StatusOr<nccl_abi::DataType> NcclDataType(PrimitiveType type);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_NCCL_CUDA_COLLECTIVE_TRANSPORT_H_
