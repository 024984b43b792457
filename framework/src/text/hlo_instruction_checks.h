#ifndef HMO_SRC_TEXT_HLO_INSTRUCTION_CHECKS_H_
#define HMO_SRC_TEXT_HLO_INSTRUCTION_CHECKS_H_

// Checks XLA's parser makes on a whole instruction once its operands and
// attributes are read (internal to the parser): the ones a verifier cannot
// make later because the attribute is kept as text, or that XLA refuses at
// parse time. Each failure names the attribute it is about, so the parser
// can point at its value.

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::text_internal {

struct InstructionCheckError {
  // The attribute whose value is wrong, or empty for the instruction itself
  // (its opcode).
  std::string attribute;
  std::string message;
};

// nullopt-like: an empty message means the instruction is fine.
InstructionCheckError CheckParsedInstruction(const HloInstruction& instruction);

// `D(...)` of a layout: a comma-separated list of dimension level types, each
// D (dense), C (compressed), S (singleton) or H (loose compressed), the last
// three optionally followed by `+` (non-unique) and/or `~` (unordered).
// Returns an error message, or empty.
std::string CheckDimLevelTypes(std::string_view text);

}  // namespace hmo::text_internal

#endif  // HMO_SRC_TEXT_HLO_INSTRUCTION_CHECKS_H_
