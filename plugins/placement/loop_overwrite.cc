#include "loop_overwrite.h"

#include <cstdint>
#include <optional>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/literal.h"
#include "hmo/ir/primitive_type.h"

namespace hmo {
namespace {

// The value of an integer scalar constant.
std::optional<int64_t> IntegerConstant(const HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kConstant || !instruction->has_literal() ||
      !instruction->shape().IsScalar() ||
      !primitive_util::IsIntegralType(instruction->shape().element_type())) {
    return std::nullopt;
  }
  return instruction->literal().GetAsInt64(0);
}

// Whether `instruction` is get-tuple-element `index` of `tuple`.
bool IsElement(const HloInstruction* instruction, const HloInstruction* tuple, int64_t index) {
  return instruction->opcode() == HloOpcode::kGetTupleElement && instruction->operand(0) == tuple &&
         instruction->tuple_index() == index;
}

// The trip count of `loop` when it counts tuple element `index` from 0 by 1
// while it is less than a constant.
std::optional<int64_t> TripCountOfInductionVariable(const HloInstruction& loop, int64_t index) {
  const HloInstruction* init = loop.operand(0);
  if (init->opcode() != HloOpcode::kTuple || index >= init->operand_count() ||
      IntegerConstant(init->operand(index)) != 0) {
    return std::nullopt;
  }
  const HloComputation* body = loop.while_body();
  const HloInstruction* root = body->root_instruction();
  const HloInstruction* body_parameter = body->parameter_instruction(0);
  if (root->opcode() != HloOpcode::kTuple || index >= root->operand_count()) return std::nullopt;
  const HloInstruction* next = root->operand(index);
  if (next->opcode() != HloOpcode::kAdd) return std::nullopt;
  const bool steps_by_one = (IsElement(next->operand(0), body_parameter, index) &&
                             IntegerConstant(next->operand(1)) == 1) ||
                            (IsElement(next->operand(1), body_parameter, index) &&
                             IntegerConstant(next->operand(0)) == 1);
  if (!steps_by_one) return std::nullopt;
  const HloInstruction* compare = loop.while_condition()->root_instruction();
  const HloInstruction* condition_parameter = loop.while_condition()->parameter_instruction(0);
  if (compare->opcode() != HloOpcode::kCompare) return std::nullopt;
  std::optional<int64_t> bound;
  if (compare->comparison_direction() == ComparisonDirection::kLt &&
      IsElement(compare->operand(0), condition_parameter, index)) {
    bound = IntegerConstant(compare->operand(1));
  } else if (compare->comparison_direction() == ComparisonDirection::kGt &&
             IsElement(compare->operand(1), condition_parameter, index)) {
    bound = IntegerConstant(compare->operand(0));
  }
  if (!bound.has_value()) return std::nullopt;
  return *bound > 0 ? *bound : 0;
}

// Whether `start` is `iv`, or select(iv < 0, iv + size, iv), which equals
// `iv` for the non-negative values it takes.
bool IsInductionVariable(const HloInstruction* start, const HloInstruction* body_parameter,
                         int64_t index) {
  if (IsElement(start, body_parameter, index)) return true;
  if (start->opcode() != HloOpcode::kSelect ||
      !IsElement(start->operand(2), body_parameter, index)) {
    return false;
  }
  const HloInstruction* negative = start->operand(0);
  return negative->opcode() == HloOpcode::kCompare &&
         negative->comparison_direction() == ComparisonDirection::kLt &&
         IsElement(negative->operand(0), body_parameter, index) &&
         IntegerConstant(negative->operand(1)) == 0;
}

}  // namespace

bool LoopOverwritesEveryElement(const HloInstruction& dus, const HloInstruction& broadcast) {
  if (dus.opcode() != HloOpcode::kDynamicUpdateSlice) return false;
  const HloComputation* body = dus.parent();
  const HloInstruction* body_parameter = body->parameter_instruction(0);
  const HloInstruction* buffer = dus.operand(0);
  if (buffer->opcode() != HloOpcode::kGetTupleElement || buffer->operand(0) != body_parameter) {
    return false;
  }
  const int64_t slot = buffer->tuple_index();
  // Nothing in the body reads rows the loop has not written yet.
  if (buffer->users().size() != 1) return false;
  const HloInstruction* root = body->root_instruction();
  if (root->opcode() != HloOpcode::kTuple || slot >= root->operand_count() ||
      root->operand(slot) != &dus) {
    return false;
  }
  for (const HloInstruction* loop : body->caller_instructions()) {
    if (loop->opcode() != HloOpcode::kWhile || loop->while_body() != body) return false;
    const HloInstruction* init = loop->operand(0);
    if (init->opcode() != HloOpcode::kTuple || init->operand(slot) != &broadcast) return false;
  }
  if (body->caller_instructions().size() != 1) return false;
  const HloInstruction& loop = *body->caller_instructions().front();

  // The one dimension the update does not cover, written at the induction
  // variable; the others are covered whatever their start (it clamps to 0).
  const Shape& shape = dus.shape();
  const Shape& update = dus.operand(1)->shape();
  std::optional<int64_t> row_dimension;
  for (int d = 0; d < shape.rank(); ++d) {
    if (update.dimensions(d) == shape.dimensions(d)) continue;
    if (update.dimensions(d) != 1 || row_dimension.has_value()) return false;
    row_dimension = d;
  }
  if (!row_dimension.has_value()) return true;
  const HloInstruction* start = dus.operand(2 + *row_dimension);
  for (int64_t index = 0; index < root->operand_count(); ++index) {
    if (!IsInductionVariable(start, body_parameter, index)) continue;
    const std::optional<int64_t> trips = TripCountOfInductionVariable(loop, index);
    return trips.has_value() && *trips >= shape.dimensions(*row_dimension);
  }
  return false;
}

}  // namespace hmo
