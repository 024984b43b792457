#include "collective_computation.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "fmt/format.h"
#include "hmo/ir/literal.h"

namespace hmo::collectives {
namespace {

template <typename T>
T Combine(T a, T b, ReductionKind reduction) {
  switch (reduction) {
    case ReductionKind::kSum:
      return static_cast<T>(a + b);
    case ReductionKind::kProduct:
      return static_cast<T>(a * b);
    case ReductionKind::kMin:
      return b < a ? b : a;
    case ReductionKind::kMax:
      return a < b ? b : a;
    case ReductionKind::kAnd:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(a & b);
      break;
    case ReductionKind::kOr:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(a | b);
      break;
  }
  return a;
}

// Signed sums and products are computed unsigned: they wrap, as XLA's do.
template <typename T, bool = std::is_integral_v<T>&& std::is_signed_v<T>>
struct WrappingArithmetic {
  using type = T;
};
template <typename T>
struct WrappingArithmetic<T, true> {
  using type = std::make_unsigned_t<T>;
};

// out[e] = inputs[0][e] op inputs[1][e] op ... (rank order), `count`
// elements of T.
template <typename T>
void Fold(const std::vector<const char*>& inputs, int64_t count, ReductionKind reduction,
          char* out) {
  using Arithmetic = typename WrappingArithmetic<T>::type;
  for (int64_t e = 0; e < count; ++e) {
    T value;
    std::memcpy(&value, inputs[0] + e * sizeof(T), sizeof(T));
    for (size_t r = 1; r < inputs.size(); ++r) {
      T next;
      std::memcpy(&next, inputs[r] + e * sizeof(T), sizeof(T));
      if (reduction == ReductionKind::kSum || reduction == ReductionKind::kProduct) {
        value = static_cast<T>(Combine<Arithmetic>(static_cast<Arithmetic>(value),
                                                   static_cast<Arithmetic>(next), reduction));
      } else {
        value = Combine<T>(value, next, reduction);
      }
    }
    std::memcpy(out + e * sizeof(T), &value, sizeof(T));
  }
}

// f16 / bf16: each step in double, rounded back to the format.
void FoldNarrowFloat(PrimitiveType type, const std::vector<const char*>& inputs, int64_t count,
                     ReductionKind reduction, char* out) {
  for (int64_t e = 0; e < count; ++e) {
    uint16_t bits;
    std::memcpy(&bits, inputs[0] + e * 2, 2);
    for (size_t r = 1; r < inputs.size(); ++r) {
      uint16_t next;
      std::memcpy(&next, inputs[r] + e * 2, 2);
      const double combined =
          Combine<double>(primitive_util::NarrowFloatBitsToDouble(type, bits),
                          primitive_util::NarrowFloatBitsToDouble(type, next), reduction);
      bits = primitive_util::DoubleToNarrowFloatBits(type, combined);
    }
    std::memcpy(out + e * 2, &bits, 2);
  }
}

void FoldPred(const std::vector<const char*>& inputs, int64_t count, ReductionKind reduction,
              char* out) {
  for (int64_t e = 0; e < count; ++e) {
    bool value = inputs[0][e] != 0;
    for (size_t r = 1; r < inputs.size(); ++r) {
      value = reduction == ReductionKind::kAnd ? (value && inputs[r][e] != 0)
                                               : (value || inputs[r][e] != 0);
    }
    out[e] = value ? 1 : 0;
  }
}

absl::Status Reduce(const CollectivePlan& plan, const std::vector<const char*>& inputs,
                    int64_t bytes, char* out) {
  const int64_t count = bytes / ByteWidth(plan.element_type);
  switch (plan.element_type) {
    case PrimitiveType::PRED:
      FoldPred(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::S8:
      Fold<int8_t>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::S16:
      Fold<int16_t>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::S32:
      Fold<int32_t>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::S64:
      Fold<int64_t>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::U8:
      Fold<uint8_t>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::U16:
      Fold<uint16_t>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::U32:
      Fold<uint32_t>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::U64:
      Fold<uint64_t>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::F32:
      Fold<float>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::F64:
      Fold<double>(inputs, count, plan.reduction, out);
      break;
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
      FoldNarrowFloat(plan.element_type, inputs, count, plan.reduction, out);
      break;
    default:
      return absl::UnimplementedError(fmt::format("{}: no reduction of element type {}",
                                                  plan.description,
                                                  PrimitiveTypeName(plan.element_type)));
  }
  return absl::OkStatus();
}

bool Overlap(const void* a, int64_t a_bytes, const void* b, int64_t b_bytes) {
  const char* x = static_cast<const char*>(a);
  const char* y = static_cast<const char*>(b);
  return a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes;
}

}  // namespace

Meeting MeetingOf(const CollectivePlan& plan, int64_t device) {
  Meeting meeting;
  if (plan.kind != CollectiveKind::kCollectivePermute) {
    meeting.members = plan.participants[static_cast<size_t>(device)];
  } else {
    for (int64_t d = 0; d < plan.grid.device_count(); ++d) meeting.members.push_back(d);
  }
  meeting.rank = static_cast<int>(
      std::find(meeting.members.begin(), meeting.members.end(), device) - meeting.members.begin());
  return meeting;
}

bool ReceiveOverlapsSend(const CollectivePlan& plan, absl::Span<const void* const> send,
                         absl::Span<void* const> receive) {
  for (size_t i = 0; i < receive.size(); ++i) {
    for (size_t j = 0; j < send.size(); ++j) {
      if (Overlap(receive[i], plan.receive_bytes[i], send[j], plan.send_bytes[j])) return true;
    }
  }
  return false;
}

ReceiveTargets::ReceiveTargets(const CollectivePlan& plan, absl::Span<const void* const> send,
                               absl::Span<void* const> receive)
    : receive_(receive), out_(receive.size()) {
  const bool overlap = ReceiveOverlapsSend(plan, send, receive);
  if (overlap) temporaries_.resize(receive.size());
  for (size_t i = 0; i < receive.size(); ++i) {
    if (overlap) temporaries_[i].resize(static_cast<size_t>(plan.receive_bytes[i]));
    out_[i] = overlap ? temporaries_[i].data() : static_cast<char*>(receive[i]);
  }
}

void ReceiveTargets::Finish() {
  for (size_t i = 0; i < temporaries_.size(); ++i) {
    std::memcpy(receive_[i], temporaries_[i].data(), temporaries_[i].size());
  }
}

bool WriteDeviceId(const CollectivePlan& plan, int64_t device, absl::Span<void* const> receive) {
  if (plan.kind != CollectiveKind::kReplicaId && plan.kind != CollectiveKind::kPartitionId)
    return false;
  const uint32_t id =
      static_cast<uint32_t>(plan.kind == CollectiveKind::kReplicaId ? plan.grid.replica(device)
                                                                    : plan.grid.partition(device));
  std::memcpy(receive[0], &id, sizeof(id));
  return true;
}

absl::Status ComputeReceive(const CollectivePlan& plan, int64_t device, int rank, int ranks,
                            const std::function<const char*(int member, size_t buffer)>& peer,
                            absl::Span<char* const> out) {
  absl::Status computed = absl::OkStatus();
  switch (plan.kind) {
    case CollectiveKind::kAllReduce:
      for (size_t i = 0; i < out.size() && computed.ok(); ++i) {
        std::vector<const char*> inputs;
        for (int r = 0; r < ranks; ++r) inputs.push_back(peer(r, i));
        computed = Reduce(plan, inputs, plan.receive_bytes[i], out[i]);
      }
      break;
    case CollectiveKind::kAllGather:
      for (size_t i = 0; i < out.size(); ++i) {
        const CollectivePlan::Split& split = plan.splits[i];
        for (int64_t o = 0; o < split.outer; ++o) {
          for (int k = 0; k < ranks; ++k) {
            std::memcpy(out[i] + (o * ranks + k) * split.chunk_bytes,
                        peer(k, i) + o * split.chunk_bytes, static_cast<size_t>(split.chunk_bytes));
          }
        }
      }
      break;
    case CollectiveKind::kReduceScatter:
      for (size_t i = 0; i < out.size() && computed.ok(); ++i) {
        const CollectivePlan::Split& split = plan.splits[i];
        for (int64_t o = 0; o < split.outer && computed.ok(); ++o) {
          std::vector<const char*> inputs;
          for (int r = 0; r < ranks; ++r)
            inputs.push_back(peer(r, i) + (o * ranks + rank) * split.chunk_bytes);
          computed = Reduce(plan, inputs, split.chunk_bytes, out[i] + o * split.chunk_bytes);
        }
      }
      break;
    case CollectiveKind::kAllToAll:
      if (plan.splits.empty()) {
        for (int k = 0; k < ranks; ++k) {
          std::memcpy(out[static_cast<size_t>(k)], peer(k, static_cast<size_t>(rank)),
                      static_cast<size_t>(plan.receive_bytes[static_cast<size_t>(k)]));
        }
      } else {
        const CollectivePlan::Split& split = plan.splits[0];
        for (int64_t o = 0; o < split.outer; ++o) {
          for (int k = 0; k < ranks; ++k) {
            std::memcpy(out[0] + (o * ranks + k) * split.chunk_bytes,
                        peer(k, 0) + (o * ranks + rank) * split.chunk_bytes,
                        static_cast<size_t>(split.chunk_bytes));
          }
        }
      }
      break;
    case CollectiveKind::kCollectivePermute: {
      const int64_t source = plan.peers[static_cast<size_t>(device)].source;
      if (source >= 0) {
        std::memcpy(out[0], peer(static_cast<int>(source), 0),
                    static_cast<size_t>(plan.receive_bytes[0]));
      } else {
        std::memset(out[0], 0, static_cast<size_t>(plan.receive_bytes[0]));
      }
      break;
    }
    case CollectiveKind::kCollectiveBroadcast:
      for (size_t i = 0; i < out.size(); ++i)
        std::memcpy(out[i], peer(0, i), static_cast<size_t>(plan.receive_bytes[i]));
      break;
    default:
      computed = absl::InternalError(plan.description + ": not a collective");
  }
  return computed;
}

}  // namespace hmo::collectives
