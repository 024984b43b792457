#ifndef HMO_SRC_VERIFIER_STRUCTURE_CHECKS_H_
#define HMO_SRC_VERIFIER_STRUCTURE_CHECKS_H_

// Structural checks of the HLO verifier (phases 1 and 2 of hlo_verifier.h):
// entry computation, unique names, computation/instruction parents, roots,
// parameter numbering, operand counts, operand/user and control edge
// symmetry, called computations, fusion callers, shape validity.
// Internal to libhmo_framework.

#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/hlo_verifier.h"
#include "hmo/verifier/verifier_error.h"

namespace hmo::verifier_internal {

// What later phases need to know about the structure.
struct StructureReport {
  // Computations owned by the module (the only valid call targets).
  absl::flat_hash_set<const HloComputation*> module_computations;
  // Instructions with a structural violation (shape checks skip them).
  absl::flat_hash_set<const HloInstruction*> broken_instructions;
  // Computations without a usable root or parameter list (instructions that
  // call them skip their shape checks).
  absl::flat_hash_set<const HloComputation*> broken_computations;
  // Every instruction calling each computation (from called_computations(),
  // not from the computation's caller list).
  absl::flat_hash_map<const HloComputation*, std::vector<const HloInstruction*>> callers;
};

// Operand-count rule for `instruction`'s opcode: nullopt when fine, else the
// violation message.
std::optional<std::string> CheckOperandCount(const HloInstruction& instruction);

// Called-computation-count rule for the opcode: nullopt when fine.
std::optional<std::string> CheckCalledComputationCount(const HloInstruction& instruction);

// Runs phases 1 and 2 and fills `report`.
void CheckModuleStructure(const HloModule& module, const HloVerifierOptions& options,
                          VerifierErrorSink& sink, StructureReport& report);

}  // namespace hmo::verifier_internal

#endif  // HMO_SRC_VERIFIER_STRUCTURE_CHECKS_H_
