#ifndef HMO_IR_INSTRUCTION_SOURCE_H_
#define HMO_IR_INSTRUCTION_SOURCE_H_

// Where the user's program created an instruction, from the metadata JAX and
// XLA write: the innermost frame of its `stack_frame_id` in the module's
// StackFrames tables (stack_frame_index.h), or the older `source_file` /
// `source_line` fields. Reports name values by it, so that a user reads
// their own code, not HLO names.

#include <cstddef>
#include <string>
#include <vector>

#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/stack_frame_index.h"

namespace hmo {

// The instruction whose metadata names `instruction`'s source: itself, or,
// for a fusion whose own metadata names none, its fused root (through nested
// fusions) when that names one, else the first fused instruction that does.
// A fusion made by XLA often has no metadata of its own although every op
// it fused came from the user's code.
const HloInstruction& SourceInstruction(const HloInstruction& instruction);

// "file:line (function)" of the innermost frame ("file:line" without a
// function name) of SourceInstruction(instruction); empty when the metadata
// names no source.
std::string InstructionSource(const HloInstruction& instruction);

// The whole call stack of SourceInstruction(instruction), innermost first
// ("file:line (function)" each); the one frame of source_file/source_line;
// empty without metadata.
std::vector<std::string> InstructionCallStack(const HloInstruction& instruction);

// The `op_name` of SourceInstruction(instruction) ("jit(f)/mul"), or empty.
std::string InstructionOpName(const HloInstruction& instruction);

// The distinct sources (innermost frames) of the instructions a fusion fused,
// nested fusions' in place, in the order the fused computation defines them;
// its parameters (the operands' places) are left out. Empty for an
// instruction that is not a fusion or whose fused ops name no source.
std::vector<std::string> FusedSources(const HloInstruction& fusion);

// At most this many fused sources are named in a line; the rest are counted.
inline constexpr size_t kNamedFusedSources = 8;

// "fuses ops from a.py:3 (f), a.py:4 (g)" (the first kNamedFusedSources,
// then "and N more"); empty for no sources.
std::string FusedSourcesText(const std::vector<std::string>& sources);

}  // namespace hmo

#endif  // HMO_IR_INSTRUCTION_SOURCE_H_
