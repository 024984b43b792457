#ifndef HMO_BACKENDS_GPU_NCCL_HOST_COLLECTIVE_TRANSPORT_H_
#define HMO_BACKENDS_GPU_NCCL_HOST_COLLECTIVE_TRANSPORT_H_

// The host fake of NCCL: the ranks of a clique are threads of this process,
// their buffers host memory. Each operation is two rendezvous
// (rendezvous.h): the first exchanges every rank's buffer addresses, each
// rank then computes its own result into a private temporary from its
// peers' send buffers, the second waits until every rank has finished
// reading, and only then is the result stored (so receive may alias send).
// Ranks must issue the same operations in the same order, as with NCCL.
//
// Reductions: s8..s64, u8..u64, f32, f64 (sum, product, min, max);
// UNIMPLEMENTED for pred, f16, bf16 and complex types.

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "hmo/collectives/in_process_collectives.h"
#include "hmo/collectives/rendezvous.h"
#include "gpu/nccl/collective_thunk.h"

namespace hmo::gpu {

class HostCollectiveTransport final : public CollectiveTransport {
 public:
  // `rendezvous` is shared by the clique's ranks and outlives the transport;
  // `clique_name` keys its points (e.g. CliqueKey::ToString()). A peer that
  // does not arrive within `timeout` fails the operation with
  // DEADLINE_EXCEEDED. `plans`, shared by the clique's ranks when not null,
  // runs RunPlan (the rank is the device).
  HostCollectiveTransport(collectives::Rendezvous& rendezvous, std::string clique_name, int rank,
                          int num_ranks, absl::Duration timeout = absl::Seconds(10),
                          collectives::InProcessCollectives* plans = nullptr)
      : plans_(plans),
        rendezvous_(rendezvous),
        clique_name_(std::move(clique_name)),
        rank_(rank),
        num_ranks_(num_ranks),
        timeout_(timeout) {}

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
  bool RunsPlans() const override { return plans_ != nullptr; }
  absl::Status RunPlan(const collectives::CollectivePlan& plan, absl::Span<const void* const> send,
                       absl::Span<void* const> receive) override {
    if (plans_ == nullptr) return CollectiveTransport::RunPlan(plan, send, receive);
    return plans_->Run(plan, rank_, send, receive);
  }

 private:
  // Every rank's send buffer, after the first rendezvous of a new round.
  absl::StatusOr<std::vector<const void*>> ExchangeSendBuffers(const void* send, std::string_view what);
  // The second rendezvous of the round.
  absl::Status WaitUntilAllRead(std::string_view what);

  collectives::InProcessCollectives* plans_;
  collectives::Rendezvous& rendezvous_;
  std::string clique_name_;
  int rank_;
  int num_ranks_;
  absl::Duration timeout_;
  int64_t round_ = 0;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_NCCL_HOST_COLLECTIVE_TRANSPORT_H_
