#ifndef HMO_BACKENDS_CPU_FUSION_EXPANDED_FUSION_REGROUPING_H_
#define HMO_BACKENDS_CPU_FUSION_EXPANDED_FUSION_REGROUPING_H_

// The execution preparation expands the fusions the emitters cannot emit
// whole (an XLA-optimized module's output fusions: a dot or convolution with
// its elementwise epilogue, reductions in the middle of elementwise work,
// ...). Run one kernel per instruction, every intermediate of such a fusion
// would be a buffer of its own. RegroupExpandedInstructions fuses the
// expanded instructions again into fusions the emitters do emit whole: the
// dots, convolutions and other non-elemental instructions stay kernels of
// their own, each reduction becomes a reduction fusion with its elementwise
// producers computed inside its loop (whatever its size: XLA fused it), and
// the elementwise rest becomes loop fusions reading them. Only expanded
// instructions are fused with each other; the module's other instructions
// are left as they are.
//
// Keeps the schedule valid (the fusions take their consumers' places).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::cpu {

// `expanded`: the instructions the expansion added (ExpandFusions). Returns
// how many fusions were made.
absl::StatusOr<int64_t> RegroupExpandedInstructions(HloModule& module,
                                                    const std::vector<HloInstruction*>& expanded);

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_FUSION_EXPANDED_FUSION_REGROUPING_H_
