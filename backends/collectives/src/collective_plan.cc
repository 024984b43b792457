#include "hmo/collectives/collective_plan.h"

#include <algorithm>
#include <string>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo::collectives {
namespace {

absl::Status Unsupported(const HloInstruction& instruction, std::string_view why) {
  return absl::UnimplementedError(
      fmt::format("{} {}: {}", HloOpcodeString(instruction.opcode()), instruction.name(), why));
}

absl::Status Invalid(const HloInstruction& instruction, std::string_view why) {
  return absl::InvalidArgumentError(
      fmt::format("{} {}: {}", HloOpcodeString(instruction.opcode()), instruction.name(), why));
}

bool IsParameterNumber(const HloInstruction* instruction, int64_t number) {
  return instruction->opcode() == HloOpcode::kParameter &&
         instruction->parameter_number() == number;
}

absl::StatusOr<ReductionKind> ReductionOf(const HloInstruction& instruction, PrimitiveType type) {
  const HloComputation* computation = instruction.to_apply();
  if (computation == nullptr) return Invalid(instruction, "no to_apply computation");
  const HloInstruction* root = computation->root_instruction();
  const bool binary_of_parameters =
      computation->num_parameters() == 2 && root->operand_count() == 2 &&
      ((IsParameterNumber(root->operand(0), 0) && IsParameterNumber(root->operand(1), 1)) ||
       (IsParameterNumber(root->operand(0), 1) && IsParameterNumber(root->operand(1), 0)));
  if (binary_of_parameters) {
    const bool pred = type == PrimitiveType::PRED;
    switch (root->opcode()) {
      case HloOpcode::kAdd:
        return pred ? ReductionKind::kOr : ReductionKind::kSum;
      case HloOpcode::kMultiply:
        return pred ? ReductionKind::kAnd : ReductionKind::kProduct;
      case HloOpcode::kMinimum:
        return pred ? ReductionKind::kAnd : ReductionKind::kMin;
      case HloOpcode::kMaximum:
        return pred ? ReductionKind::kOr : ReductionKind::kMax;
      case HloOpcode::kAnd:
        if (pred) return ReductionKind::kAnd;
        break;
      case HloOpcode::kOr:
        if (pred) return ReductionKind::kOr;
        break;
      default:
        break;
    }
  }
  return Unsupported(instruction,
                     fmt::format("the reduction {} is not one of add, multiply, minimum, maximum "
                                 "(and, or on pred) of its two parameters",
                                 computation->name()));
}

// The physical order of `shape`'s dimensions, most minor first.
std::vector<int64_t> MinorToMajor(const Shape& shape) {
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major().size()) == shape.rank()) {
    return shape.layout().minor_to_major();
  }
  std::vector<int64_t> order;
  for (int64_t d = shape.rank() - 1; d >= 0; --d) order.push_back(d);
  return order;
}

// `whole` split into `parts` along `dimension`: [outer][parts][chunk].
absl::StatusOr<CollectivePlan::Split> SplitAlong(const HloInstruction& instruction,
                                                 const Shape& whole, const Shape& part,
                                                 int64_t dimension, int64_t parts) {
  if (dimension < 0 || dimension >= whole.rank() || whole.rank() != part.rank()) {
    return Invalid(instruction,
                   fmt::format("dimension {} does not split {}", dimension, whole.ToString()));
  }
  if (MinorToMajor(whole) != MinorToMajor(part)) {
    return Unsupported(instruction, fmt::format("the layouts of {} and {} differ", whole.ToString(),
                                                part.ToString()));
  }
  for (int64_t d = 0; d < whole.rank(); ++d) {
    if (whole.dimensions(d) != part.dimensions(d) * (d == dimension ? parts : 1)) {
      return Invalid(instruction,
                     fmt::format("{} is not {} x {} along dimension {}", whole.ToString(false),
                                 parts, part.ToString(false), dimension));
    }
  }
  const std::vector<int64_t> order = MinorToMajor(whole);
  const size_t position =
      static_cast<size_t>(std::find(order.begin(), order.end(), dimension) - order.begin());
  CollectivePlan::Split split;
  int64_t inner = 1;
  for (size_t i = 0; i < position; ++i) inner *= whole.dimensions(order[i]);
  for (size_t i = position + 1; i < order.size(); ++i) split.outer *= whole.dimensions(order[i]);
  split.chunk_bytes = part.dimensions(dimension) * inner * ByteWidth(whole.element_type());
  return split;
}

// The device-independent group size of a gather, scatter or all-to-all.
absl::StatusOr<int64_t> UniformGroupSize(const HloInstruction& instruction,
                                         const CollectivePlan& plan) {
  const int64_t size = static_cast<int64_t>(plan.participants.front().size());
  for (const std::vector<int64_t>& group : plan.participants) {
    if (static_cast<int64_t>(group.size()) != size) {
      return Unsupported(instruction, "its replica groups differ in size");
    }
  }
  return size;
}

// `status` (of the framework's participant helpers, which name the
// instruction) led by the plan's description instead.
absl::Status WithDescription(const CollectivePlan& plan, const HloInstruction& instruction,
                             const absl::Status& status) {
  std::string message(status.message());
  const std::string named = instruction.name() + ": ";
  if (message.rfind(named, 0) == 0) message = message.substr(named.size());
  return absl::Status(status.code(), fmt::format("{}: {}", plan.description, message));
}

}  // namespace

bool IsPlannedCollective(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return true;
    default:
      return false;
  }
}

std::vector<ShapeIndex> CollectiveReceiveIndices(const HloInstruction& instruction) {
  const bool start_with_operand = instruction.opcode() == HloOpcode::kAllGatherStart ||
                                  instruction.opcode() == HloOpcode::kCollectivePermuteStart;
  const ShapeIndex base = start_with_operand ? ShapeIndex{1} : ShapeIndex{};
  const Shape& shape = ShapeUtil::GetSubshape(instruction.shape(), base);
  if (!shape.IsTuple()) return {base};
  std::vector<ShapeIndex> indices;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size()); ++i) {
    ShapeIndex index = base;
    index.push_back(i);
    indices.push_back(index);
  }
  return indices;
}

absl::StatusOr<CollectivePlan> PlanCollective(const HloInstruction& instruction,
                                              const DeviceGrid& grid) {
  CollectivePlan plan;
  plan.grid = grid;
  plan.description =
      fmt::format("{} {}", HloOpcodeString(instruction.opcode()), instruction.name());
  switch (instruction.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      plan.kind = CollectiveKind::kAllReduce;
      break;
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      plan.kind = CollectiveKind::kAllGather;
      break;
    case HloOpcode::kReduceScatter:
      plan.kind = CollectiveKind::kReduceScatter;
      break;
    case HloOpcode::kAllToAll:
      plan.kind = CollectiveKind::kAllToAll;
      break;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      plan.kind = CollectiveKind::kCollectivePermute;
      break;
    case HloOpcode::kCollectiveBroadcast:
      plan.kind = CollectiveKind::kCollectiveBroadcast;
      break;
    case HloOpcode::kReplicaId:
      plan.kind = CollectiveKind::kReplicaId;
      break;
    case HloOpcode::kPartitionId:
      plan.kind = CollectiveKind::kPartitionId;
      break;
    default:
      return Unsupported(instruction, "not a collective");
  }
  if (plan.kind == CollectiveKind::kReplicaId || plan.kind == CollectiveKind::kPartitionId) {
    plan.element_type = PrimitiveType::U32;
    plan.receive_bytes.push_back(ShapeUtil::ByteSizeOf(instruction.shape()));
    if (plan.receive_bytes[0] != 4) return Invalid(instruction, "the result is not u32[]");
    return plan;
  }

  // Buffers: every operand an array of one element type, as every leaf.
  std::vector<const Shape*> sends, receives;
  for (const HloInstruction* operand : instruction.operands()) {
    if (!operand->shape().IsArray()) return Unsupported(instruction, "an operand is not an array");
    sends.push_back(&operand->shape());
  }
  for (const ShapeIndex& index : CollectiveReceiveIndices(instruction)) {
    const Shape& leaf = ShapeUtil::GetSubshape(instruction.shape(), index);
    if (!leaf.IsArray()) return Unsupported(instruction, "a result is not an array");
    receives.push_back(&leaf);
  }
  if (sends.empty()) return Invalid(instruction, "no operand");
  plan.element_type = sends.front()->element_type();
  for (const Shape* shape : sends) plan.send_bytes.push_back(ShapeUtil::ByteSizeOf(*shape));
  for (const Shape* shape : receives) plan.receive_bytes.push_back(ShapeUtil::ByteSizeOf(*shape));
  for (const std::vector<const Shape*>* list : {&sends, &receives}) {
    for (const Shape* shape : *list) {
      if (shape->element_type() != plan.element_type) {
        return Unsupported(instruction, "its operands and results differ in element type");
      }
    }
  }
  if (BitWidth(plan.element_type) % 8 != 0 ||
      ShapeUtil::ByteSizeOfElements(*sends.front()) !=
          ShapeUtil::ElementsIn(*sends.front()) * ByteWidth(plan.element_type)) {
    return Unsupported(instruction, fmt::format("element type {} is not byte-sized",
                                                PrimitiveTypeName(plan.element_type)));
  }

  const int64_t devices = grid.device_count();
  if (plan.kind == CollectiveKind::kCollectivePermute) {
    if (sends.size() != 1 || receives.size() != 1) {
      return Unsupported(instruction,
                         "only the one-operand form of collective-permute is supported");
    }
    for (int64_t d = 0; d < devices; ++d) {
      absl::StatusOr<PermutePeers> peers = CollectivePermutePeers(instruction, grid, d);
      if (!peers.ok()) return WithDescription(plan, instruction, peers.status());
      plan.peers.push_back(*peers);
    }
  } else {
    for (int64_t d = 0; d < devices; ++d) {
      absl::StatusOr<std::vector<int64_t>> group = CollectiveParticipants(instruction, grid, d);
      if (!group.ok()) return WithDescription(plan, instruction, group.status());
      plan.participants.push_back(*std::move(group));
    }
  }

  switch (plan.kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kCollectivePermute:
    case CollectiveKind::kCollectiveBroadcast:
      if (sends.size() != receives.size())
        return Invalid(instruction, "operands and results differ in number");
      for (size_t i = 0; i < sends.size(); ++i) {
        if (plan.send_bytes[i] != plan.receive_bytes[i] ||
            MinorToMajor(*sends[i]) != MinorToMajor(*receives[i])) {
          return Unsupported(instruction,
                             fmt::format("operand {} and its result differ in bytes or layout", i));
        }
      }
      if (plan.kind == CollectiveKind::kAllReduce) {
        HMO_ASSIGN_OR_RETURN(plan.reduction, ReductionOf(instruction, plan.element_type));
      }
      return plan;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter: {
      HMO_ASSIGN_OR_RETURN(const int64_t ranks, UniformGroupSize(instruction, plan));
      if (sends.size() != receives.size())
        return Invalid(instruction, "operands and results differ in number");
      if (instruction.dimensions().size() != 1)
        return Invalid(instruction, "expected one dimension in dimensions={...}");
      const bool gather = plan.kind == CollectiveKind::kAllGather;
      for (size_t i = 0; i < sends.size(); ++i) {
        HMO_ASSIGN_OR_RETURN(
            CollectivePlan::Split split,
            SplitAlong(instruction, gather ? *receives[i] : *sends[i],
                       gather ? *sends[i] : *receives[i], instruction.dimensions(0), ranks));
        plan.splits.push_back(split);
      }
      if (!gather) {
        HMO_ASSIGN_OR_RETURN(plan.reduction, ReductionOf(instruction, plan.element_type));
      }
      return plan;
    }
    case CollectiveKind::kAllToAll: {
      HMO_ASSIGN_OR_RETURN(const int64_t ranks, UniformGroupSize(instruction, plan));
      if (instruction.dimensions().empty()) {
        // Tuple form: one operand per rank, all alike.
        if (static_cast<int64_t>(sends.size()) != ranks || receives.size() != sends.size()) {
          return Invalid(
              instruction,
              fmt::format("the tuple form needs one operand and one result per each of the "
                          "{} participants",
                          ranks));
        }
        for (size_t i = 0; i < sends.size(); ++i) {
          if (plan.send_bytes[i] != plan.send_bytes[0] ||
              plan.receive_bytes[i] != plan.send_bytes[0]) {
            return Invalid(instruction, "the tuple form's operands and results differ in bytes");
          }
        }
        return plan;
      }
      if (sends.size() != 1 || receives.size() != 1 || instruction.dimensions().size() != 1) {
        return Unsupported(instruction, "the array form takes one operand and one dimension");
      }
      const int64_t dimension = instruction.dimensions(0);
      if (dimension < 0 || dimension >= sends[0]->rank() ||
          sends[0]->dimensions(dimension) % ranks != 0 ||
          !ShapeUtil::Compatible(*sends[0], *receives[0]) ||
          MinorToMajor(*sends[0]) != MinorToMajor(*receives[0])) {
        return Invalid(instruction, fmt::format("dimension {} of {} does not split into {} chunks",
                                                dimension, sends[0]->ToString(), ranks));
      }
      Shape chunk = *sends[0];
      chunk.mutable_dimensions()->at(static_cast<size_t>(dimension)) /= ranks;
      HMO_ASSIGN_OR_RETURN(CollectivePlan::Split split,
                           SplitAlong(instruction, *sends[0], chunk, dimension, ranks));
      plan.splits.push_back(split);
      return plan;
    }
    default:
      return Unsupported(instruction, "not a collective");
  }
}

}  // namespace hmo::collectives
