// CudaCollectiveTransport::RunPlan: collective plans on device memory with
// NCCL (see cuda_collective_transport.h). It reads like
// InProcessCollectives::Run: the id ops, the meeting (the device's group
// and its rank in it), receive targets (staged on overlap), the
// computation, and the staged results copied in.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "gpu/nccl/cuda_collective_transport.h"
#include "hmo/base/status_macros.h"

namespace hmo::gpu {
namespace {

using PlanKind = collectives::CollectiveKind;
using collectives::CollectivePlan;

// Scratch regions start on this boundary (NCCL and copies like aligned
// buffers; the staged receive buffers keep the alignment of the originals).
constexpr size_t kScratchAlignment = 256;

size_t Aligned(int64_t bytes) {
  return (static_cast<size_t>(bytes) + kScratchAlignment - 1) / kScratchAlignment *
         kScratchAlignment;
}

// NCCL's data type and operation for the plan's reduction. pred reduces as
// u8 0/1 values: and (and min, product) is min, or (and max, sum) is max.
absl::StatusOr<std::pair<nccl_abi::DataType, nccl_abi::RedOp>> NcclReduction(
    const CollectivePlan& plan) {
  using collectives::ReductionKind;
  if (plan.element_type == PrimitiveType::PRED) {
    const bool all = plan.reduction == ReductionKind::kAnd ||
                     plan.reduction == ReductionKind::kMin ||
                     plan.reduction == ReductionKind::kProduct;
    return std::make_pair(nccl_abi::kUint8, all ? nccl_abi::kMin : nccl_abi::kMax);
  }
  absl::StatusOr<nccl_abi::DataType> type = NcclDataType(plan.element_type);
  if (!type.ok()) {
    return absl::UnimplementedError(fmt::format("{}: NCCL has no data type to reduce {}",
                                                plan.description,
                                                PrimitiveTypeName(plan.element_type)));
  }
  switch (plan.reduction) {
    case ReductionKind::kSum:
      return std::make_pair(*type, nccl_abi::kSum);
    case ReductionKind::kProduct:
      return std::make_pair(*type, nccl_abi::kProd);
    case ReductionKind::kMin:
      return std::make_pair(*type, nccl_abi::kMin);
    case ReductionKind::kMax:
      return std::make_pair(*type, nccl_abi::kMax);
    default:
      return absl::UnimplementedError(fmt::format("{}: NCCL has no bitwise and / or of {}",
                                                  plan.description,
                                                  PrimitiveTypeName(plan.element_type)));
  }
}

bool Overlap(const void* a, int64_t a_bytes, const void* b, int64_t b_bytes) {
  const char* x = static_cast<const char*>(a);
  const char* y = static_cast<const char*>(b);
  return a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes;
}

// Whether receive buffers must be staged: one overlaps a send buffer (an
// all-reduce exactly in place excepted: NCCL supports it).
bool NeedsReceiveStaging(const CollectivePlan& plan, absl::Span<const void* const> send,
                         absl::Span<void* const> receive) {
  for (size_t i = 0; i < receive.size(); ++i) {
    for (size_t j = 0; j < send.size(); ++j) {
      const bool in_place = plan.kind == PlanKind::kAllReduce && i == j && receive[i] == send[j] &&
                            plan.receive_bytes[i] == plan.send_bytes[j];
      if (!in_place && Overlap(receive[i], plan.receive_bytes[i], send[j], plan.send_bytes[j]))
        return true;
    }
  }
  return false;
}

// Every group of a (non-permute) plan once, in the order of their first
// device: the same list on every device.
std::vector<std::vector<int64_t>> DistinctGroups(const CollectivePlan& plan) {
  std::vector<std::vector<int64_t>> groups;
  for (const std::vector<int64_t>& group : plan.participants) {
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
  }
  return groups;
}

// Scratch for reordering [outer][ranks][chunk] to [ranks][outer][chunk]
// and back: per buffer pair with outer > 1, room for a send and a receive.
size_t ReorderScratchBytes(const CollectivePlan& plan) {
  size_t bytes = 0;
  for (size_t i = 0; i < plan.splits.size(); ++i) {
    if (plan.splits[i].outer > 1)
      bytes += Aligned(plan.send_bytes[i]) + Aligned(plan.receive_bytes[i]);
  }
  return bytes;
}

}  // namespace

absl::Status CudaCollectiveTransport::RunPlan(const CollectivePlan& plan,
                                              absl::Span<const void* const> send,
                                              absl::Span<void* const> receive) {
  if (rank_ >= plan.grid.device_count() || send.size() != plan.send_bytes.size() ||
      receive.size() != plan.receive_bytes.size()) {
    return absl::InternalError(fmt::format("{}: device {} passed {} send and {} receive buffers",
                                           plan.description, rank_, send.size(), receive.size()));
  }
  if (plan.kind == PlanKind::kReplicaId || plan.kind == PlanKind::kPartitionId) {
    const bool replica = plan.kind == PlanKind::kReplicaId;
    uint32_t& id = replica ? replica_id_ : partition_id_;
    id = static_cast<uint32_t>(replica ? plan.grid.replica(rank_) : plan.grid.partition(rank_));
    return memory_->CopyFromHost(receive[0], &id, sizeof(id));
  }
  if (absl::Status s = RequireNccl(plan.description.c_str()); !s.ok()) return s;

  // The meeting: a collective-permute runs among every device on the
  // clique's communicator (its peers are devices); the others in the
  // device's group, on the group's communicator.
  nccl_abi::Comm comm = comm_;
  int group_size = num_ranks_;
  if (plan.kind != PlanKind::kCollectivePermute) {
    const std::vector<int64_t>& members = plan.participants[static_cast<size_t>(rank_)];
    group_size = static_cast<int>(members.size());
    // Before anything else: every device takes part in a split, even one
    // alone in its group.
    HMO_ASSIGN_OR_RETURN(comm, groups_->For(DistinctGroups(plan), plan.description));
  }

  const bool stage_receive = NeedsReceiveStaging(plan, send, receive);
  size_t scratch_bytes = group_size > 1 ? ReorderScratchBytes(plan) : 0;
  if (stage_receive) {
    for (int64_t bytes : plan.receive_bytes) scratch_bytes += Aligned(bytes);
  }
  char* scratch = nullptr;
  if (scratch_bytes > 0) {
    HMO_ASSIGN_OR_RETURN(scratch, Scratch(scratch_bytes));
  }
  std::vector<char*> out(receive.size());
  for (size_t i = 0; i < receive.size(); ++i) {
    if (stage_receive) {
      out[i] = scratch;
      scratch += Aligned(plan.receive_bytes[i]);
    } else {
      out[i] = static_cast<char*>(receive[i]);
    }
  }

  if (group_size == 1 && plan.kind != PlanKind::kCollectivePermute) {
    // Alone in its group: every collective is its own data.
    for (size_t i = 0; i < out.size(); ++i) {
      HMO_RETURN_IF_ERROR(
          memory_->Copy(out[i], send[i], static_cast<size_t>(plan.receive_bytes[i])));
    }
  } else {
    HMO_RETURN_IF_ERROR(RunPlanOnCommunicator(plan, send, out, comm, group_size, scratch));
  }
  if (stage_receive) {
    for (size_t i = 0; i < out.size(); ++i) {
      HMO_RETURN_IF_ERROR(
          memory_->Copy(receive[i], out[i], static_cast<size_t>(plan.receive_bytes[i])));
    }
  }
  return absl::OkStatus();
}

absl::Status CudaCollectiveTransport::RunPlanOnCommunicator(const CollectivePlan& plan,
                                                            absl::Span<const void* const> send,
                                                            absl::Span<char* const> out,
                                                            nccl_abi::Comm comm, int group_size,
                                                            char* staging) {
  const NcclFunctions& f = nccl_->functions();
  void* stream = stream_;
  const auto bytes_of = [](int64_t bytes) { return static_cast<size_t>(bytes); };
  const auto check_splits = [&](size_t expected) -> absl::Status {
    if (plan.splits.size() != expected) {
      return absl::InternalError(fmt::format("{}: {} splits for {} buffers", plan.description,
                                             plan.splits.size(), expected));
    }
    return absl::OkStatus();
  };
  // [ranks][outer][chunk] at `from` -> [outer][ranks][chunk] at `to`.
  const auto spread = [&](char* to, const char* from,
                          const CollectivePlan::Split& split) -> absl::Status {
    const size_t chunk = bytes_of(split.chunk_bytes);
    for (int k = 0; k < group_size; ++k) {
      HMO_RETURN_IF_ERROR(memory_->CopyStrided(to + k * chunk, chunk * group_size,
                                               from + k * split.outer * chunk, chunk, chunk,
                                               bytes_of(split.outer)));
    }
    return absl::OkStatus();
  };
  // [outer][ranks][chunk] at `from` -> [ranks][outer][chunk] at `to`.
  const auto gather_by_rank = [&](char* to, const char* from,
                                  const CollectivePlan::Split& split) -> absl::Status {
    const size_t chunk = bytes_of(split.chunk_bytes);
    for (int k = 0; k < group_size; ++k) {
      HMO_RETURN_IF_ERROR(memory_->CopyStrided(to + k * split.outer * chunk, chunk,
                                               from + k * chunk, chunk * group_size, chunk,
                                               bytes_of(split.outer)));
    }
    return absl::OkStatus();
  };

  switch (plan.kind) {
    case PlanKind::kAllReduce: {
      HMO_ASSIGN_OR_RETURN(const auto reduction, NcclReduction(plan));
      const int64_t width = ByteWidth(plan.element_type);
      return Grouped([&]() -> absl::Status {
        for (size_t i = 0; i < out.size(); ++i) {
          HMO_RETURN_IF_ERROR(
              nccl_->Check(f.AllReduce(send[i], out[i], bytes_of(plan.receive_bytes[i] / width),
                                       reduction.first, reduction.second, comm, stream),
                           "ncclAllReduce"));
        }
        return absl::OkStatus();
      });
    }
    case PlanKind::kAllGather: {
      HMO_RETURN_IF_ERROR(check_splits(out.size()));
      // Each buffer with outer > 1 gathers into [ranks][outer][chunk] scratch.
      std::vector<char*> gathered(out.size());
      char* next = staging;
      for (size_t i = 0; i < out.size(); ++i) {
        gathered[i] = plan.splits[i].outer > 1 ? next : out[i];
        if (plan.splits[i].outer > 1)
          next += Aligned(plan.send_bytes[i]) + Aligned(plan.receive_bytes[i]);
      }
      HMO_RETURN_IF_ERROR(Grouped([&]() -> absl::Status {
        for (size_t i = 0; i < out.size(); ++i) {
          HMO_RETURN_IF_ERROR(
              nccl_->Check(f.AllGather(send[i], gathered[i], bytes_of(plan.send_bytes[i]),
                                       nccl_abi::kUint8, comm, stream),
                           "ncclAllGather"));
        }
        return absl::OkStatus();
      }));
      for (size_t i = 0; i < out.size(); ++i) {
        if (plan.splits[i].outer > 1)
          HMO_RETURN_IF_ERROR(spread(out[i], gathered[i], plan.splits[i]));
      }
      return absl::OkStatus();
    }
    case PlanKind::kReduceScatter: {
      HMO_RETURN_IF_ERROR(check_splits(out.size()));
      HMO_ASSIGN_OR_RETURN(const auto reduction, NcclReduction(plan));
      const int64_t width = ByteWidth(plan.element_type);
      // Each send with outer > 1 is regrouped rank-major in scratch first.
      std::vector<const void*> by_rank(out.size());
      char* next = staging;
      for (size_t i = 0; i < out.size(); ++i) {
        by_rank[i] = send[i];
        if (plan.splits[i].outer > 1) {
          HMO_RETURN_IF_ERROR(
              gather_by_rank(next, static_cast<const char*>(send[i]), plan.splits[i]));
          by_rank[i] = next;
          next += Aligned(plan.send_bytes[i]) + Aligned(plan.receive_bytes[i]);
        }
      }
      return Grouped([&]() -> absl::Status {
        for (size_t i = 0; i < out.size(); ++i) {
          HMO_RETURN_IF_ERROR(nccl_->Check(
              f.ReduceScatter(by_rank[i], out[i], bytes_of(plan.receive_bytes[i] / width),
                              reduction.first, reduction.second, comm, stream),
              "ncclReduceScatter"));
        }
        return absl::OkStatus();
      });
    }
    case PlanKind::kAllToAll: {
      if (plan.splits.empty()) {
        // Tuple form: send[k] to rank k, receive[k] from rank k.
        if (static_cast<int>(out.size()) != group_size ||
            static_cast<int>(send.size()) != group_size) {
          return absl::InternalError(
              fmt::format("{}: {} buffers for {} ranks", plan.description, out.size(), group_size));
        }
        return Grouped([&]() -> absl::Status {
          for (int k = 0; k < group_size; ++k) {
            const size_t b = static_cast<size_t>(k);
            HMO_RETURN_IF_ERROR(nccl_->Check(
                f.Send(send[b], bytes_of(plan.send_bytes[b]), nccl_abi::kUint8, k, comm, stream),
                "ncclSend"));
            HMO_RETURN_IF_ERROR(nccl_->Check(
                f.Recv(out[b], bytes_of(plan.receive_bytes[b]), nccl_abi::kUint8, k, comm, stream),
                "ncclRecv"));
          }
          return absl::OkStatus();
        });
      }
      HMO_RETURN_IF_ERROR(check_splits(1));
      const CollectivePlan::Split& split = plan.splits[0];
      const size_t piece = bytes_of(split.outer * split.chunk_bytes);  // to or from one rank
      const char* to_send = static_cast<const char*>(send[0]);
      char* to_receive = out[0];
      if (split.outer > 1) {
        char* send_staging = staging;
        to_receive = staging + Aligned(plan.send_bytes[0]);
        HMO_RETURN_IF_ERROR(gather_by_rank(send_staging, to_send, split));
        to_send = send_staging;
      }
      HMO_RETURN_IF_ERROR(Grouped([&]() -> absl::Status {
        for (int k = 0; k < group_size; ++k) {
          HMO_RETURN_IF_ERROR(nccl_->Check(
              f.Send(to_send + k * piece, piece, nccl_abi::kUint8, k, comm, stream), "ncclSend"));
          HMO_RETURN_IF_ERROR(
              nccl_->Check(f.Recv(to_receive + k * piece, piece, nccl_abi::kUint8, k, comm, stream),
                           "ncclRecv"));
        }
        return absl::OkStatus();
      }));
      return split.outer > 1 ? spread(out[0], to_receive, split) : absl::OkStatus();
    }
    case PlanKind::kCollectivePermute: {
      const PermutePeers& peers = plan.peers[static_cast<size_t>(rank_)];
      if (peers.target >= 0 || peers.source >= 0) {
        HMO_RETURN_IF_ERROR(Grouped([&]() -> absl::Status {
          if (peers.target >= 0) {
            HMO_RETURN_IF_ERROR(
                nccl_->Check(f.Send(send[0], bytes_of(plan.send_bytes[0]), nccl_abi::kUint8,
                                    static_cast<int>(peers.target), comm, stream),
                             "ncclSend"));
          }
          if (peers.source >= 0) {
            HMO_RETURN_IF_ERROR(
                nccl_->Check(f.Recv(out[0], bytes_of(plan.receive_bytes[0]), nccl_abi::kUint8,
                                    static_cast<int>(peers.source), comm, stream),
                             "ncclRecv"));
          }
          return absl::OkStatus();
        }));
      }
      // No source: zeros, as XLA does.
      return peers.source >= 0 ? absl::OkStatus()
                               : memory_->Zero(out[0], bytes_of(plan.receive_bytes[0]));
    }
    case PlanKind::kCollectiveBroadcast:
      if (f.Broadcast == nullptr) {
        return absl::UnimplementedError(
            fmt::format("{}: {} has no ncclBroadcast", plan.description, nccl_->name()));
      }
      return Grouped([&]() -> absl::Status {
        for (size_t i = 0; i < out.size(); ++i) {
          HMO_RETURN_IF_ERROR(
              nccl_->Check(f.Broadcast(send[i], out[i], bytes_of(plan.receive_bytes[i]),
                                       nccl_abi::kUint8, /*root=*/0, comm, stream),
                           "ncclBroadcast"));
        }
        return absl::OkStatus();
      });
    default:
      return absl::InternalError(plan.description + ": not a collective");
  }
}

}  // namespace hmo::gpu
