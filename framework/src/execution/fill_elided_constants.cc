// FillElidedConstants (declared in hmo/execution/random_literals.h): values
// for the constants an HLO dump printed as `{...}`.

#include "hmo/execution/random_literals.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

int64_t FillElidedConstants(HloModule& module, uint64_t seed) {
  int64_t filled = 0;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kConstant || !instruction->has_literal() ||
          !instruction->literal().is_elided()) {
        continue;
      }
      // Seeded by name, not position, so that a pass moving or removing
      // other constants does not change this one's values.
      instruction->set_literal(
          MakeRandomLiteral(instruction->shape(), DeriveSeed(seed, instruction->name())));
      ++filled;
    }
  }
  return filled;
}

}  // namespace hmo
