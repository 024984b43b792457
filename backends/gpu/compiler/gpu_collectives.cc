#include "gpu/compiler/gpu_collectives.h"

#include <algorithm>
#include <string>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo::gpu {
namespace {

absl::StatusOr<HostElementType> HostType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::PRED: return HostElementType::kPred;
    case PrimitiveType::S8: return HostElementType::kS8;
    case PrimitiveType::S16: return HostElementType::kS16;
    case PrimitiveType::S32: return HostElementType::kS32;
    case PrimitiveType::S64: return HostElementType::kS64;
    case PrimitiveType::U8: return HostElementType::kU8;
    case PrimitiveType::U16: return HostElementType::kU16;
    case PrimitiveType::U32: return HostElementType::kU32;
    case PrimitiveType::U64: return HostElementType::kU64;
    case PrimitiveType::F16: return HostElementType::kF16;
    case PrimitiveType::BF16: return HostElementType::kBF16;
    case PrimitiveType::F32: return HostElementType::kF32;
    case PrimitiveType::F64: return HostElementType::kF64;
    default:
      return absl::UnimplementedError("collectives: unsupported element type " +
                                      std::string(PrimitiveTypeName(type)));
  }
}

absl::Status Unsupported(const HloInstruction& instruction, std::string_view why) {
  return absl::UnimplementedError(fmt::format("GPU executable: {} instruction {}: {}",
                                              HloOpcodeString(instruction.opcode()), instruction.name(), why));
}

// Which collectives (IsCollectiveOpcode) this backend runs: the synchronous
// single-operand forms through NCCL or, for a clique of one, copies.
bool IsCollectiveTheBackendRuns(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
      return true;
    default:
      return false;
  }
}

std::string GroupString(const std::vector<int64_t>& group) {
  return "{" + fmt::format("{}", fmt::join(group, ",")) + "}";
}

std::string ReplicasString(int num_replicas) {
  return num_replicas == 1 ? "the GPU executable runs on one device" : fmt::format("compiled for {} replicas", num_replicas);
}

// One CollectiveOp covers a multi-replica all-reduce / all-gather /
// reduce-scatter only as one group of all replicas in rank order. Other
// groups still run: multi-device transports run the collective's plan
// (a communicator per group); this only says there is no single operation.
absl::Status CheckOneGroupOfAll(const HloInstruction& instruction, int num_replicas) {
  const std::optional<std::string_view> text = instruction.GetRawAttribute("replica_groups");
  if (!text.has_value()) return absl::OkStatus();
  absl::StatusOr<std::vector<std::vector<int64_t>>> groups = ParseReplicaGroups(*text);
  if (!groups.ok()) return Unsupported(instruction, std::string(groups.status().message()));
  if (groups->empty()) return absl::OkStatus();
  if (groups->size() > 1) {
    return Unsupported(
        instruction,
        fmt::format("{} replica groups {}: not one operation of all {} replicas (run from "
                    "the collective plan, a communicator per group)",
                    groups->size(), *text, num_replicas));
  }
  std::vector<int64_t> all(static_cast<size_t>(num_replicas));
  for (int r = 0; r < num_replicas; ++r) all[static_cast<size_t>(r)] = r;
  if (groups->front() != all) {
    return Unsupported(
        instruction,
        fmt::format("the replica group {} is not replicas 0..{} in order ({}; a subset or another "
                    "rank order runs from the collective plan, on its own communicator)",
                    GroupString(groups->front()), num_replicas - 1, ReplicasString(num_replicas)));
  }
  return absl::OkStatus();
}

// Across replicas, all-gather concatenates and reduce-scatter splits the
// flat buffers: only right when every dimension laid out outside the
// gathered / scattered one has size 1.
absl::Status CheckOutermostDimension(const HloInstruction& instruction, const Shape& smaller, const Shape& larger,
                                     int num_replicas) {
  if (instruction.dimensions().size() != 1) {
    return Unsupported(instruction, "expected one dimension in dimensions={...}");
  }
  const int64_t dimension = instruction.dimensions(0);
  if (dimension < 0 || dimension >= smaller.rank() || smaller.rank() != larger.rank() ||
      larger.dimensions(dimension) != smaller.dimensions(dimension) * num_replicas) {
    return absl::InvalidArgumentError(fmt::format(
        "GPU executable: {} instruction {}: dimension {} of {} is not {} replicas x dimension {} of {}",
        HloOpcodeString(instruction.opcode()), instruction.name(), dimension, larger.ToString(), num_replicas,
        dimension, smaller.ToString()));
  }
  auto minor_to_major = [](const Shape& shape) {
    if (shape.has_layout()) return shape.layout().minor_to_major();
    std::vector<int64_t> order;
    for (int64_t d = shape.rank() - 1; d >= 0; --d) order.push_back(d);
    return order;
  };
  const std::vector<int64_t> order = minor_to_major(larger);
  if (order != minor_to_major(smaller)) {
    return Unsupported(instruction, "the operand and the result have different layouts");
  }
  const auto position = std::find(order.begin(), order.end(), dimension);
  for (auto it = position + 1; it < order.end(); ++it) {
    if (smaller.dimensions(*it) != 1) {
      return Unsupported(instruction,
                         fmt::format("dimension {} is not the outermost non-trivial one of the layout (dimension {} "
                                     "of size {} is laid out outside it); across replicas only the outermost "
                                     "dimension is supported",
                                     dimension, *it, smaller.dimensions(*it)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CollectiveOp> CollectiveOpFor(const HloInstruction& instruction, int num_replicas) {
  if (!IsCollectiveTheBackendRuns(instruction)) {
    return Unsupported(
        instruction,
        "the GPU backend runs all-reduce, all-gather, reduce-scatter and collective-permute");
  }
  if (num_replicas < 1) return absl::InvalidArgumentError(fmt::format("{} replicas", num_replicas));
  if (!instruction.shape().IsArray() || instruction.operand_count() != 1 ||
      !instruction.operand(0)->shape().IsArray()) {
    return Unsupported(instruction, "only the single-operand array form is supported");
  }
  CollectiveOp op;
  absl::StatusOr<HostElementType> type = HostType(instruction.shape().element_type());
  if (!type.ok()) return Unsupported(instruction, std::string(type.status().message()));
  op.element_type = *type;
  op.send_elements = ShapeUtil::ElementsIn(instruction.operand(0)->shape());

  if (instruction.opcode() == HloOpcode::kCollectivePermute) {
    op.kind = CollectiveKind::kCollectivePermute;
    const std::optional<std::string_view> pairs_text = instruction.GetRawAttribute("source_target_pairs");
    if (pairs_text.has_value()) {
      absl::StatusOr<std::vector<std::pair<int, int>>> pairs = ParseSourceTargetPairs(*pairs_text);
      if (!pairs.ok()) return Unsupported(instruction, std::string(pairs.status().message()));
      std::vector<int> as_source(static_cast<size_t>(num_replicas), 0), as_target(static_cast<size_t>(num_replicas), 0);
      for (const auto& [source, target] : *pairs) {
        if (source >= num_replicas || target >= num_replicas) {
          return Unsupported(instruction, fmt::format("the pair {{{},{}}} needs {} devices; {}", source, target,
                                                      std::max(source, target) + 1, ReplicasString(num_replicas)));
        }
        if (as_source[static_cast<size_t>(source)]++ > 0 || as_target[static_cast<size_t>(target)]++ > 0) {
          return absl::InvalidArgumentError(
              fmt::format("GPU executable: collective-permute instruction {}: the pair {{{},{}}} repeats a source "
                          "or a target",
                          instruction.name(), source, target));
        }
      }
      op.source_target_pairs = std::move(*pairs);
    }
    return op;
  }

  if (num_replicas == 1) {
    const std::optional<std::string_view> groups = instruction.GetRawAttribute("replica_groups");
    if (groups.has_value()) {
      absl::StatusOr<int64_t> size = ReplicaGroupSize(*groups);
      if (!size.ok()) return Unsupported(instruction, std::string(size.status().message()));
      if (*size > 1) {
        return Unsupported(instruction, fmt::format("replica groups of {} devices; the GPU executable runs on one "
                                                    "(a clique of one; compile with num_replicas for more)",
                                                    *size));
      }
    }
  } else {
    HMO_RETURN_IF_ERROR(CheckOneGroupOfAll(instruction, num_replicas));
    const Shape& operand = instruction.operand(0)->shape();
    if (instruction.opcode() == HloOpcode::kAllGather) {
      HMO_RETURN_IF_ERROR(CheckOutermostDimension(instruction, operand, instruction.shape(), num_replicas));
    } else if (instruction.opcode() == HloOpcode::kReduceScatter) {
      HMO_RETURN_IF_ERROR(CheckOutermostDimension(instruction, instruction.shape(), operand, num_replicas));
    }
  }
  switch (instruction.opcode()) {
    case HloOpcode::kAllGather: op.kind = CollectiveKind::kAllGather; return op;
    case HloOpcode::kAllReduce: op.kind = CollectiveKind::kAllReduce; break;
    case HloOpcode::kReduceScatter: op.kind = CollectiveKind::kReduceScatter; break;
    default: return Unsupported(instruction, "not a collective");
  }
  const HloComputation* reduction = instruction.to_apply();
  if (reduction == nullptr) return Unsupported(instruction, "no reduction computation");
  switch (reduction->root_instruction()->opcode()) {
    case HloOpcode::kAdd: op.reduction = ReductionKind::kSum; break;
    case HloOpcode::kMultiply: op.reduction = ReductionKind::kProduct; break;
    case HloOpcode::kMinimum: op.reduction = ReductionKind::kMin; break;
    case HloOpcode::kMaximum: op.reduction = ReductionKind::kMax; break;
    default: return Unsupported(instruction, "the reduction must be add, multiply, minimum or maximum");
  }
  return op;
}

}  // namespace hmo::gpu
