#include "host_offload_utils.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_opcode.h"
#include "memory_annotations.h"

namespace hmo::host_offload_utils {
namespace {

ShapeIndex Prepend(int64_t front, const ShapeIndex& rest) {
  ShapeIndex index;
  index.reserve(rest.size() + 1);
  index.push_back(front);
  index.insert(index.end(), rest.begin(), rest.end());
  return index;
}

// The output index of `custom_call` that reuses the buffer of operand
// `operand_number` at `operand_index`, or nullopt when it defines a new one.
std::optional<ShapeIndex> CustomCallReusedOutput(const HloInstruction* custom_call,
                                                 int64_t operand_number,
                                                 const ShapeIndex& operand_index) {
  if (custom_call->custom_call_target() == memory_annotations::kMoveToHostCustomCallTarget ||
      custom_call->custom_call_target() == memory_annotations::kMoveToDeviceCustomCallTarget) {
    return operand_index;
  }
  for (const OutputOperandAlias& alias : custom_call->output_to_operand_aliasing()) {
    if (alias.operand_number == operand_number && alias.operand_index == operand_index) {
      return alias.output_index;
    }
  }
  return std::nullopt;
}

// The dimensions of `shape` of size > 1, major to minor in its layout.
std::vector<int64_t> PhysicalNonDegenerateDims(const Shape& shape) {
  Layout layout = ShapeUtil::LayoutOrDefault(shape);
  std::vector<int64_t> dims;
  for (int i = layout.minor_to_major_size() - 1; i >= 0; --i) {
    int64_t d = layout.minor_to_major(i);
    if (shape.dimensions(static_cast<int>(d)) != 1) dims.push_back(d);
  }
  return dims;
}

std::vector<int64_t> LogicalNonDegenerateDims(const Shape& shape) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(static_cast<int>(d)) != 1) dims.push_back(d);
  }
  return dims;
}

bool HasOnlyPlainLayout(const Shape& shape) {
  if (!shape.has_layout()) return true;
  const Layout& layout = shape.layout();
  return layout.tiles().empty() && layout.element_size_in_bits() == 0 &&
         !layout.has_physical_shape();
}

}  // namespace

std::string InstructionAndShapeIndex::ToString() const {
  return absl::StrFormat("{Instr: %s, ShapeIndex: %s}", instruction->name(),
                         ShapeIndexToString(shape_index));
}

absl::StatusOr<std::vector<InstructionAndShapeIndex>> GetSuccessors(
    const InstructionAndShapeIndex& position) {
  std::vector<InstructionAndShapeIndex> result;
  HloInstruction* instruction = position.instruction;
  if (instruction->IsRoot()) {
    HloComputation* computation = instruction->parent();
    for (HloInstruction* caller : computation->caller_instructions()) {
      switch (caller->opcode()) {
        case HloOpcode::kWhile:
          if (caller->while_body() != computation) continue;
          break;
        case HloOpcode::kCall:
        case HloOpcode::kConditional:
          break;
        default:
          continue;
      }
      result.emplace_back(caller, position.shape_index);
    }
  }
  for (HloInstruction* user : instruction->users()) {
    const std::vector<int64_t> operand_numbers = user->OperandIndices(instruction);
    switch (user->opcode()) {
      case HloOpcode::kTuple:
        for (int64_t i : operand_numbers) {
          result.emplace_back(user, Prepend(i, position.shape_index));
        }
        break;
      case HloOpcode::kGetTupleElement: {
        if (position.shape_index.empty()) {
          return absl::InternalError(absl::StrFormat(
              "host offload: reached get-tuple-element %s from %s with an empty shape index",
              user->name(), instruction->name()));
        }
        if (position.shape_index.front() == user->tuple_index()) {
          result.emplace_back(user,
                              ShapeIndex(position.shape_index.begin() + 1, position.shape_index.end()));
        }
        break;
      }
      case HloOpcode::kCall:
      case HloOpcode::kAsyncStart: {
        HloComputation* callee = user->called_computations().front();
        for (int64_t i : operand_numbers) {
          result.emplace_back(callee->parameter_instruction(i), position.shape_index);
        }
        break;
      }
      case HloOpcode::kWhile:
        for (int64_t i : operand_numbers) {
          result.emplace_back(user->while_body()->parameter_instruction(i), position.shape_index);
          result.emplace_back(user->while_condition()->parameter_instruction(i),
                              position.shape_index);
        }
        break;
      case HloOpcode::kConditional:
        for (int64_t i : operand_numbers) {
          if (i == 0) continue;  // the predicate / branch index
          result.emplace_back(user->branch_computation(i - 1)->parameter_instruction(0),
                              position.shape_index);
        }
        break;
      case HloOpcode::kCustomCall:
        for (int64_t i : operand_numbers) {
          if (std::optional<ShapeIndex> output =
                  CustomCallReusedOutput(user, i, position.shape_index)) {
            result.emplace_back(user, *output);
          }
        }
        break;
      default:
        result.emplace_back(user, position.shape_index);
        break;
    }
  }
  return result;
}

absl::StatusOr<std::vector<InstructionAndShapeIndex>> GetPredecessors(
    const InstructionAndShapeIndex& position) {
  std::vector<InstructionAndShapeIndex> result;
  HloInstruction* instruction = position.instruction;
  switch (instruction->opcode()) {
    case HloOpcode::kGetTupleElement:
      result.emplace_back(instruction->mutable_operand(0),
                          Prepend(instruction->tuple_index(), position.shape_index));
      break;
    case HloOpcode::kTuple: {
      if (position.shape_index.empty()) {
        return absl::InternalError(absl::StrFormat(
            "host offload: reached tuple %s with an empty shape index", instruction->name()));
      }
      result.emplace_back(instruction->mutable_operand(position.shape_index.front()),
                          ShapeIndex(position.shape_index.begin() + 1, position.shape_index.end()));
      break;
    }
    case HloOpcode::kCall:
      result.emplace_back(instruction->to_apply()->root_instruction(), position.shape_index);
      break;
    case HloOpcode::kWhile:
      result.emplace_back(instruction->while_body()->root_instruction(), position.shape_index);
      break;
    case HloOpcode::kParameter: {
      HloComputation* computation = instruction->parent();
      for (HloInstruction* caller : computation->caller_instructions()) {
        int64_t operand_number = instruction->parameter_number();
        if (caller->opcode() == HloOpcode::kConditional) {
          for (int64_t b = 0; b < caller->branch_count(); ++b) {
            if (caller->branch_computation(b) == computation) operand_number = b + 1;
          }
        }
        if (operand_number >= caller->operand_count()) continue;
        result.emplace_back(caller->mutable_operand(operand_number), position.shape_index);
      }
      break;
    }
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kPad:
      result.emplace_back(instruction->mutable_operand(0), position.shape_index);
      break;
    default:
      if (instruction->operand_count() != 1) {
        return absl::InternalError(absl::StrFormat(
            "host offload: cannot trace the buffer of %s back: expected 1 operand, it has %d",
            instruction->name(), instruction->operand_count()));
      }
      result.emplace_back(instruction->mutable_operand(0), position.shape_index);
      break;
  }
  return result;
}

bool IsValidDuringPureMemoryOffload(const HloInstruction* instruction) {
  static constexpr std::array kAllowed = {
      HloOpcode::kGetTupleElement, HloOpcode::kBitcast,   HloOpcode::kTuple,
      HloOpcode::kCall,            HloOpcode::kWhile,     HloOpcode::kConditional,
      HloOpcode::kParameter,       HloOpcode::kOptimizationBarrier,
      HloOpcode::kAsyncStart,      HloOpcode::kAsyncDone, HloOpcode::kCustomCall};
  return std::find(kAllowed.begin(), kAllowed.end(), instruction->opcode()) != kAllowed.end();
}

bool ReshapeIsBitcast(const Shape& input, const Shape& output) {
  if (!input.IsArray() || !output.IsArray()) return false;
  if (input.element_type() != output.element_type()) return false;
  if (!HasOnlyPlainLayout(input) || !HasOnlyPlainLayout(output)) return false;
  const std::vector<int64_t> in_physical = PhysicalNonDegenerateDims(input);
  const std::vector<int64_t> out_physical = PhysicalNonDegenerateDims(output);
  const std::vector<int64_t> in_logical = LogicalNonDegenerateDims(input);
  const std::vector<int64_t> out_logical = LogicalNonDegenerateDims(output);
  // Row-major on both sides (ignoring size-1 dimensions): a reshape keeps
  // the linear element order, so the bytes are unchanged.
  if (in_physical == in_logical && out_physical == out_logical) return true;
  // Otherwise only size-1 dimensions may be added or removed: the k-th
  // non-degenerate input dimension is the k-th output one, and both must sit
  // in the same physical order.
  if (in_logical.size() != out_logical.size()) return false;
  for (size_t k = 0; k < in_logical.size(); ++k) {
    if (input.dimensions(static_cast<int>(in_logical[k])) !=
        output.dimensions(static_cast<int>(out_logical[k]))) {
      return false;
    }
  }
  auto ordinal = [](const std::vector<int64_t>& logical, int64_t dim) {
    return std::find(logical.begin(), logical.end(), dim) - logical.begin();
  };
  for (size_t k = 0; k < in_physical.size(); ++k) {
    if (ordinal(in_logical, in_physical[k]) != ordinal(out_logical, out_physical[k])) return false;
  }
  return true;
}

}  // namespace hmo::host_offload_utils
