#ifndef HMO_SRC_TEXT_PARSED_SHAPE_INFERENCE_H_
#define HMO_SRC_TEXT_PARSED_SHAPE_INFERENCE_H_

// The result shape XLA's parser gives an instruction written without one
// (`add(a, b)`, nested operands), for the opcodes XLA infers (the rules of
// hmo/ir/instruction_shape_inference.h, shared with the verifier); the
// others must be written with a shape. Internal to the parser.

#include <functional>
#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/instruction_shape_inference.h"
#include "hmo/ir/shape.h"

namespace hmo::text_internal {

using ::hmo::CalleeLookup;

// Operands and attributes of `instr` are set; its shape is not. The result
// has default (descending) layouts, as XLA's parser fills them. Errors say
// which opcode cannot be inferred or what shape inference refused.
absl::StatusOr<Shape> InferParsedInstructionShape(const HloInstruction& instr,
                                                  const CalleeLookup& callee);

}  // namespace hmo::text_internal

#endif  // HMO_SRC_TEXT_PARSED_SHAPE_INFERENCE_H_
