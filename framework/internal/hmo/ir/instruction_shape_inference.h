#ifndef HMO_IR_INSTRUCTION_SHAPE_INFERENCE_H_
#define HMO_IR_INSTRUCTION_SHAPE_INFERENCE_H_

// The one opcode -> ShapeInference dispatch: which rule gives an
// instruction's result shape from its operands, attributes and called
// computations. The parser infers the shape of an instruction written
// without one with it (text/parsed_shape_inference.cc); the verifier checks
// a written shape against it (verifier/instruction_shape_checks.cc).

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/shape.h"
#include "hmo/ir/shape_inference.h"

namespace hmo {

// `callee(attribute, i)`: the i-th computation named by `attribute`
// (`to_apply`, `select`, `scatter`, `body`, `branch_computations`, ...) or null.
using CalleeLookup = std::function<const HloComputation*(std::string_view attribute, size_t index)>;

struct InstructionShapeInputs {
  // Where called computations are found; empty: the instruction's own (the
  // parser looks them up by name before they are linked).
  CalleeLookup callee;
  // dot, convolution: the result's element type (XLA's preferred element
  // type); none: the lhs's.
  std::optional<PrimitiveType> result_element_type;
  ShapeInferenceOptions options;
};

// Whether InferInstructionShape has a rule for `opcode` (the opcodes XLA's
// parser infers; broadcast as broadcast-by-sizes).
bool HasInstructionShapeRule(HloOpcode opcode);

// `instr`'s result shape from its operands and attributes (its own shape is
// not read), without layouts. NotFound for an opcode without a rule;
// InvalidArgument saying what shape inference refused.
absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instr,
                                            const InstructionShapeInputs& inputs = {});

}  // namespace hmo

#endif  // HMO_IR_INSTRUCTION_SHAPE_INFERENCE_H_
