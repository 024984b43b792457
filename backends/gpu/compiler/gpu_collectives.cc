#include "compiler/gpu_collectives.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "fmt/format.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo::gpu {
namespace {

// The integers of `text` in order, ignoring every other character.
std::vector<int64_t> Integers(std::string_view text) {
  std::vector<int64_t> values;
  int64_t value = 0;
  bool in_number = false;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      value = value * 10 + (c - '0');
      in_number = true;
    } else if (in_number) {
      values.push_back(value);
      value = 0;
      in_number = false;
    }
  }
  if (in_number) values.push_back(value);
  return values;
}

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

}  // namespace

bool IsCollective(const HloInstruction& instruction) {
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

absl::StatusOr<int64_t> ReplicaGroupSize(std::string_view text) {
  const size_t iota = text.find("<=");
  if (iota != std::string_view::npos) {
    // [groups, size]<=[devices]...: the tile's last dimension is the size.
    const std::vector<int64_t> tile = Integers(text.substr(0, iota));
    if (tile.size() < 2) return absl::InvalidArgumentError("cannot read replica_groups " + std::string(text));
    return tile.back();
  }
  int64_t largest = 1, current = 0;
  int depth = 0;
  bool in_number = false;
  for (char c : text) {
    if (c == '{') {
      ++depth;
      if (depth == 2) current = 0;
    } else if (c == '}') {
      if (in_number) ++current;
      in_number = false;
      if (depth == 2) largest = std::max(largest, current);
      --depth;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      if (depth != 2) return absl::InvalidArgumentError("cannot read replica_groups " + std::string(text));
      in_number = true;
    } else if (c == ',') {
      if (in_number) ++current;
      in_number = false;
    }
  }
  if (depth != 0) return absl::InvalidArgumentError("unbalanced replica_groups " + std::string(text));
  return largest;
}

absl::StatusOr<std::vector<std::pair<int, int>>> ParseSourceTargetPairs(std::string_view text) {
  const std::vector<int64_t> values = Integers(text);
  if (values.size() % 2 != 0) return absl::InvalidArgumentError("odd source_target_pairs " + std::string(text));
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i < values.size(); i += 2) {
    pairs.emplace_back(static_cast<int>(values[i]), static_cast<int>(values[i + 1]));
  }
  return pairs;
}

absl::StatusOr<CollectiveOp> SingleDeviceCollectiveOp(const HloInstruction& instruction) {
  if (!IsCollective(instruction)) return Unsupported(instruction, "not a collective");
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
      for (const auto& [source, target] : *pairs) {
        if (source != 0 || target != 0) {
          return Unsupported(instruction, fmt::format("the pair {{{},{}}} needs {} devices; the GPU executable "
                                                      "runs on one",
                                                      source, target, std::max(source, target) + 1));
        }
      }
      op.source_target_pairs = std::move(*pairs);
    }
    return op;
  }

  const std::optional<std::string_view> groups = instruction.GetRawAttribute("replica_groups");
  if (groups.has_value()) {
    absl::StatusOr<int64_t> size = ReplicaGroupSize(*groups);
    if (!size.ok()) return Unsupported(instruction, std::string(size.status().message()));
    if (*size > 1) {
      return Unsupported(instruction, fmt::format("replica groups of {} devices; the GPU executable runs on one "
                                                  "(a clique of one)",
                                                  *size));
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
