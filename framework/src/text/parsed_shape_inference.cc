#include "parsed_shape_inference.h"

#include "../ir/str_cat.h"
#include "hmo/ir/instruction_shape_inference.h"

namespace hmo::text_internal {

using ir_internal::StrCat;

absl::StatusOr<Shape> InferParsedInstructionShape(const HloInstruction& instr, const CalleeLookup& callee) {
  if (!HasInstructionShapeRule(instr.opcode())) {
    return absl::InvalidArgumentError(StrCat(
        "cannot infer the shape of ", HloOpcodeString(instr.opcode()), ": write its result shape"));
  }
  InstructionShapeInputs inputs;
  inputs.callee = callee;
  absl::StatusOr<Shape> shape = InferInstructionShape(instr, inputs);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(StrCat("failed to infer the shape of ",
                                             HloOpcodeString(instr.opcode()), ": ",
                                             shape.status().message()));
  }
  ShapeUtil::SetDefaultLayoutsIfMissing(&*shape);
  return shape;
}

}  // namespace hmo::text_internal
