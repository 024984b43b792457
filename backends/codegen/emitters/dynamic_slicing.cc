#include "hmo/codegen/dynamic_slicing.h"

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

}  // namespace hmo::codegen
