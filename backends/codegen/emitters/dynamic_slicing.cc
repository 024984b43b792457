#include "hmo/codegen/dynamic_slicing.h"

#include <functional>
#include <vector>

#include "absl/container/flat_hash_set.h"

#include "hmo/ir/primitive_type.h"

namespace hmo::codegen {

llvm::Value* EmitClampedSliceStart(llvm::IRBuilderBase& b, llvm::Value* raw, PrimitiveType type,
                                   int64_t limit) {
  llvm::Value* wide = primitive_util::IsUnsignedIntegralType(type)
                          ? b.CreateZExtOrTrunc(raw, b.getInt64Ty())
                          : b.CreateSExtOrTrunc(raw, b.getInt64Ty());
  llvm::Value* zero = b.getInt64(0);
  llvm::Value* max = b.getInt64(limit < 0 ? 0 : limit);
  llvm::Value* lower = b.CreateSelect(b.CreateICmpSLT(wide, zero), zero, wide);
  return b.CreateSelect(b.CreateICmpSGT(lower, max), max, lower);
}

}  // namespace hmo::codegen

namespace hmo::codegen {

bool UpdatesInPlace(const HloInstruction& dus, const HloInstruction& result,
                    const ShapeIndex& result_index, const HloInstruction& updated,
                    const BufferAssignment& assignment) {
  if (dus.opcode() != HloOpcode::kDynamicUpdateSlice ||
      dus.operand_count() != 2 + dus.shape().rank()) {
    return false;
  }
  const auto result_slices = assignment.GetAllSlices(&result, result_index);
  return !result_slices.empty() && result_slices == assignment.GetAllSlices(&updated, {});
}

const HloInstruction* FusedInPlaceUpdate(const HloInstruction& fusion,
                                         const HloInstruction* expression,
                                         const ShapeIndex& output_index,
                                         const BufferAssignment& assignment) {
  while (expression->opcode() == HloOpcode::kBitcast) expression = expression->operand(0);
  if (expression->opcode() != HloOpcode::kDynamicUpdateSlice ||
      expression->operand(0)->opcode() != HloOpcode::kParameter) {
    return nullptr;
  }
  const HloInstruction* updated = fusion.operand(expression->operand(0)->parameter_number());
  return UpdatesInPlace(*expression, fusion, output_index, *updated, assignment) ? expression
                                                                                 : nullptr;
}

bool DependsOn(const HloInstruction& value, const HloInstruction& instruction) {
  // Each instruction once: a fused computation's diamonds would otherwise
  // make the walk exponential.
  absl::flat_hash_set<const HloInstruction*> visited;
  std::vector<const HloInstruction*> stack = {&value};
  while (!stack.empty()) {
    const HloInstruction* current = stack.back();
    stack.pop_back();
    if (current == &instruction) return true;
    if (!visited.insert(current).second) continue;
    for (const HloInstruction* operand : current->operands()) stack.push_back(operand);
  }
  return false;
}

bool UpdateReadsItsBufferOnlyWhereItWrites(const HloInstruction& dus) {
  const HloInstruction* buffer = dus.operand(0);
  const HloInstruction* update = dus.operand(1);
  absl::flat_hash_set<const HloInstruction*> slices;
  for (const HloInstruction* user : buffer->users()) {
    if (user == &dus) continue;
    if (user->opcode() != HloOpcode::kDynamicSlice || user->operand(0) != buffer ||
        user->operand_count() != dus.operand_count() - 1 ||
        user->shape().dimensions() != update->shape().dimensions()) {
      return false;
    }
    for (int64_t d = 1; d < user->operand_count(); ++d) {
      if (user->operand(d) != dus.operand(d + 1)) return false;
    }
    slices.insert(user);
  }
  // The buffer as dus's operand 0 only (not also as its update or a start).
  for (int64_t i = 1; i < dus.operand_count(); ++i) {
    if (dus.operand(i) == buffer) return false;
  }
  // Each value once (the ones found position-wise are remembered).
  absl::flat_hash_set<const HloInstruction*> positionwise_values;
  const std::function<bool(const HloInstruction*)> positionwise = [&](const HloInstruction* value) {
    if (positionwise_values.contains(value)) return true;
    if (!slices.contains(value) && DependsOn(*value, *buffer)) {
      if (!value->IsElementwise() || value->shape().dimensions() != update->shape().dimensions())
        return false;
      for (const HloInstruction* operand : value->operands()) {
        if (!positionwise(operand)) return false;
      }
    }
    positionwise_values.insert(value);
    return true;
  };
  for (int64_t i = 2; i < dus.operand_count(); ++i) {
    if (DependsOn(*dus.operand(i), *buffer)) return false;
  }
  return positionwise(update);
}

}  // namespace hmo::codegen
