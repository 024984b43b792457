#ifndef HMO_BACKENDS_GPU_NCCL_COLLECTIVE_THUNK_H_
#define HMO_BACKENDS_GPU_NCCL_COLLECTIVE_THUNK_H_

// One rank's part of a collective instruction (all-reduce, all-gather,
// reduce-scatter, collective-permute), independent of how bytes move:
// RunCollective validates the operation, handles a clique of one itself
// (all-reduce / all-gather / reduce-scatter of one rank are copies of the
// send buffer; collective-permute copies when the pair (0, 0) is listed and
// zero-fills the output otherwise, as XLA does for targets without a
// source), and hands multi-rank work to a CollectiveTransport:
//   - HostCollectiveTransport (host_collective_transport.h): ranks are
//     threads of this process on host memory; the test double of NCCL;
//   - CudaCollectiveTransport (cuda_collective_transport.h): device memory,
//     cudaMemcpyAsync for copies and NCCL (nccl_library.h) for the rest;
//     with several devices it runs collective plans (RunPlan) instead.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/collectives/collective_plan.h"
#include "hmo/gpu/host_element_type.h"

namespace hmo::gpu {

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kCollectivePermute };
enum class ReductionKind { kSum, kProduct, kMin, kMax };

struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  ReductionKind reduction = ReductionKind::kSum;  // all-reduce, reduce-scatter
  HostElementType element_type = HostElementType::kF32;
  // Elements of each rank's send buffer.
  int64_t send_elements = 0;
  // collective-permute: (source rank, target rank); each rank is a source
  // at most once and a target at most once.
  std::vector<std::pair<int, int>> source_target_pairs;
};

// Elements of each rank's receive buffer: send * num_ranks for all-gather,
// send / num_ranks for reduce-scatter (INVALID_ARGUMENT unless it divides),
// send otherwise.
absl::StatusOr<int64_t> ReceiveElements(const CollectiveOp& op, int num_ranks);

class CollectiveTransport {
 public:
  virtual ~CollectiveTransport() = default;
  virtual int rank() const = 0;
  virtual int num_ranks() const = 0;

  // Within this rank's memory.
  virtual absl::Status Copy(void* destination, const void* source, size_t bytes) = 0;
  virtual absl::Status Zero(void* destination, size_t bytes) = 0;

  // Across ranks (only called with num_ranks() > 1). Counts are elements.
  virtual absl::Status AllReduce(const void* send, void* receive, int64_t count, HostElementType type,
                                 ReductionKind reduction) = 0;
  virtual absl::Status AllGather(const void* send, void* receive, int64_t send_count, HostElementType type) = 0;
  virtual absl::Status ReduceScatter(const void* send, void* receive, int64_t receive_count,
                                     HostElementType type, ReductionKind reduction) = 0;
  // Sends `send` to rank `target` and receives into `receive` from rank
  // `source`; -1 for "none". Every rank calls it, even with nothing to do.
  virtual absl::Status SendReceive(const void* send, int target, void* receive, int source, int64_t count,
                                   HostElementType type) = 0;

  // Whether RunPlan runs plans (the emulation's transports, and CUDA ones
  // with an NCCL communicator; a CUDA clique of one runs CollectiveOps).
  virtual bool RunsPlans() const { return false; }
  // Runs `plan` (hmo/collectives/collective_plan.h: any group, all-to-all,
  // broadcast, variadic forms, the id ops) as device rank(). The default is
  // UNIMPLEMENTED, for transports that run CollectiveOps only.
  virtual absl::Status RunPlan(const collectives::CollectivePlan& plan,
                               absl::Span<const void* const> send,
                               absl::Span<void* const> receive) {
    (void)send;
    (void)receive;
    return absl::UnimplementedError(plan.description +
                                    ": this collective transport runs NCCL operations only");
  }
};

// This rank's part of `op`: reads `send` (send_elements), writes `receive`
// (ReceiveElements). INVALID_ARGUMENT for malformed permute pairs.
absl::Status RunCollective(const CollectiveOp& op, const void* send, void* receive, CollectiveTransport& transport);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_NCCL_COLLECTIVE_THUNK_H_
