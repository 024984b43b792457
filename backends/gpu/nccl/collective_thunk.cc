#include "gpu/nccl/collective_thunk.h"

#include <string>

namespace hmo::gpu {

absl::StatusOr<int64_t> ReceiveElements(const CollectiveOp& op, int num_ranks) {
  if (num_ranks <= 0) return absl::InvalidArgumentError("a clique needs at least one rank");
  if (op.send_elements < 0) return absl::InvalidArgumentError("negative element count");
  switch (op.kind) {
    case CollectiveKind::kAllGather:
      return op.send_elements * num_ranks;
    case CollectiveKind::kReduceScatter:
      if (op.send_elements % num_ranks != 0) {
        return absl::InvalidArgumentError("reduce-scatter of " + std::to_string(op.send_elements) +
                                          " elements over " + std::to_string(num_ranks) +
                                          " ranks: the count must divide evenly");
      }
      return op.send_elements / num_ranks;
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kCollectivePermute:
      return op.send_elements;
  }
  return absl::InternalError("unknown collective kind");
}

namespace {

// The permute partners of `rank`: where it sends and where it receives from
// (-1: none).
absl::StatusOr<std::pair<int, int>> PermutePartners(const CollectiveOp& op, int rank, int num_ranks) {
  int target = -1, source = -1;
  std::vector<int> sources_seen(static_cast<size_t>(num_ranks), 0), targets_seen(static_cast<size_t>(num_ranks), 0);
  for (const auto& [from, to] : op.source_target_pairs) {
    if (from < 0 || from >= num_ranks || to < 0 || to >= num_ranks) {
      return absl::InvalidArgumentError("collective-permute pair {" + std::to_string(from) + "," +
                                        std::to_string(to) + "} is outside a clique of " +
                                        std::to_string(num_ranks));
    }
    if (sources_seen[from]++ > 0 || targets_seen[to]++ > 0) {
      return absl::InvalidArgumentError("collective-permute: rank " + std::to_string(sources_seen[from] > 1 ? from : to) +
                                        " appears twice as a source or a target");
    }
    if (from == rank) target = to;
    if (to == rank) source = from;
  }
  return std::make_pair(target, source);
}

}  // namespace

absl::Status RunCollective(const CollectiveOp& op, const void* send, void* receive, CollectiveTransport& transport) {
  const int ranks = transport.num_ranks();
  absl::StatusOr<int64_t> receive_elements = ReceiveElements(op, ranks);
  if (!receive_elements.ok()) return receive_elements.status();
  const size_t width = ByteWidth(op.element_type);
  const size_t receive_bytes = static_cast<size_t>(*receive_elements) * width;

  if (op.kind == CollectiveKind::kCollectivePermute) {
    absl::StatusOr<std::pair<int, int>> partners = PermutePartners(op, transport.rank(), ranks);
    if (!partners.ok()) return partners.status();
    const auto [target, source] = *partners;
    if (ranks == 1) {
      return source == 0 ? transport.Copy(receive, send, receive_bytes) : transport.Zero(receive, receive_bytes);
    }
    if (source < 0) {
      if (absl::Status zero = transport.Zero(receive, receive_bytes); !zero.ok()) return zero;
    }
    return transport.SendReceive(send, target, receive, source, op.send_elements, op.element_type);
  }
  // One rank: every element of the result is this rank's own.
  if (ranks == 1) return transport.Copy(receive, send, receive_bytes);
  switch (op.kind) {
    case CollectiveKind::kAllReduce:
      return transport.AllReduce(send, receive, op.send_elements, op.element_type, op.reduction);
    case CollectiveKind::kAllGather:
      return transport.AllGather(send, receive, op.send_elements, op.element_type);
    case CollectiveKind::kReduceScatter:
      return transport.ReduceScatter(send, receive, *receive_elements, op.element_type, op.reduction);
    case CollectiveKind::kCollectivePermute:
      break;
  }
  return absl::InternalError("unknown collective kind");
}

}  // namespace hmo::gpu
