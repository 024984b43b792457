#ifndef HMO_ANALYSIS_REMATERIALIZATION_RULES_H_
#define HMO_ANALYSIS_REMATERIALIZATION_RULES_H_

// Which instructions may be computed again instead of keeping their value
// live: XLA's rematerialization rules. Not rematerializable are parameters
// and constants (their memory is held anyway), instructions that call
// computations or run opaque code (call, conditional, while, custom-call),
// instructions with side effects, collectives whose layout is constrained,
// and the layout-preserving copies copy insertion adds.

#include <optional>
#include <string>

#include "hmo/ir/hlo_instruction.h"

namespace hmo {

// nullopt when `instruction` may be rematerialized; else why not, for a
// user ("a while loop", "it has side effects", ...).
std::optional<std::string> WhyNotRematerializable(const HloInstruction& instruction);

}  // namespace hmo

#endif  // HMO_ANALYSIS_REMATERIALIZATION_RULES_H_
