#include "scalar_combiner.h"

#include <cstring>

#include "element_copy.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::eval_internal {
namespace {

bool IsCommutative(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd: case HloOpcode::kMultiply: case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: case HloOpcode::kAnd: case HloOpcode::kOr: case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsParameter(const HloInstruction* instr, int64_t number) {
  return instr->opcode() == HloOpcode::kParameter && instr->parameter_number() == number;
}

}  // namespace

std::optional<HloOpcode> MatchSimpleBinaryReducer(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr || computation.num_parameters() != 2 || root->operand_count() != 2 ||
      !root->shape().IsScalar()) {
    return std::nullopt;
  }
  const PrimitiveType type = root->shape().element_type();
  for (const HloInstruction* param : computation.parameter_instructions()) {
    if (!param->shape().IsScalar() || param->shape().element_type() != type) return std::nullopt;
  }
  const HloOpcode op = root->opcode();
  const bool in_order = IsParameter(root->operand(0), 0) && IsParameter(root->operand(1), 1);
  const bool swapped = IsParameter(root->operand(0), 1) && IsParameter(root->operand(1), 0);
  if (in_order || (swapped && IsCommutative(op))) return op;
  return std::nullopt;
}

Literal ScalarAt(const Literal& array, int64_t index) {
  Literal scalar(Shape(array.element_type(), {}));
  const int64_t width = ByteWidth(array.element_type());
  CopyElement(RawBytes(array), index, MutableRawBytes(&scalar), 0, width);
  return scalar;
}

void SetElementFromScalar(Literal* array, int64_t index, const Literal& scalar) {
  const int64_t width = ByteWidth(array->element_type());
  CopyElement(RawBytes(scalar), 0, MutableRawBytes(array), index, width);
}

absl::StatusOr<std::vector<Literal>> ApplyScalarComputation(const HloComputation& computation,
                                                            std::vector<Literal> args,
                                                            const ComputationRunner& run) {
  absl::StatusOr<Literal> result = run(computation, args);
  if (!result.ok()) return result.status();
  std::vector<Literal> values;
  if (result->shape().IsTuple()) {
    values = std::move(*result->mutable_tuple_elements());
  } else {
    values.push_back(std::move(*result));
  }
  return values;
}

void ComputationAccumulator::Reset() {
  acc_.clear();
  for (const Literal* init : inits_) acc_.push_back(ScalarAt(*init, 0));
}

absl::Status ComputationAccumulator::Add(int64_t input_index) {
  std::vector<Literal> args = std::move(acc_);
  for (const Literal* input : inputs_) args.push_back(ScalarAt(*input, input_index));
  absl::StatusOr<std::vector<Literal>> next =
      ApplyScalarComputation(computation_, std::move(args), run_);
  if (!next.ok()) return next.status();
  acc_ = std::move(*next);
  return absl::OkStatus();
}

void ComputationAccumulator::Store(int64_t output_index) {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    SetElementFromScalar(outputs_[i], output_index, acc_[i]);
  }
}

}  // namespace hmo::eval_internal
