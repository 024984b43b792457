#ifndef HMO_IR_INSTRUCTION_REACHABILITY_H_
#define HMO_IR_INSTRUCTION_REACHABILITY_H_

// Whether one instruction of a computation must run after another, for
// passes that add orderings or copies and must not close a cycle.

#include "hmo/ir/hlo_instruction.h"

namespace hmo {

// Whether `target` is `source` or depends on it, through data users or
// control successors (a walk over `source`'s transitive users, O(users)).
bool DependsOn(const HloInstruction& target, const HloInstruction& source);

}  // namespace hmo

#endif  // HMO_IR_INSTRUCTION_REACHABILITY_H_
