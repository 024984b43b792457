#ifndef HMO_IR_INSTRUCTION_SOURCE_H_
#define HMO_IR_INSTRUCTION_SOURCE_H_

// Where the user's program created an instruction, from the metadata JAX and
// XLA write: the innermost frame of its `stack_frame_id` in the module's
// StackFrames tables (stack_frame_index.h), or the older `source_file` /
// `source_line` fields. Reports name values by it, so that a user reads
// their own code, not HLO names.

#include <string>
#include <vector>

#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/stack_frame_index.h"

namespace hmo {

// "file:line (function)" of the innermost frame ("file:line" without a
// function name); empty when the metadata names no source.
std::string InstructionSource(const HloInstruction& instruction);

// The whole call stack, innermost first ("file:line (function)" each); the
// one frame of source_file/source_line; empty without metadata.
std::vector<std::string> InstructionCallStack(const HloInstruction& instruction);

}  // namespace hmo

#endif  // HMO_IR_INSTRUCTION_SOURCE_H_
