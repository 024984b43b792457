#ifndef HMO_CODEGEN_FUSION_EXPANDED_FUSION_REGROUPING_H_
#define HMO_CODEGEN_FUSION_EXPANDED_FUSION_REGROUPING_H_

// The execution preparation expands the fusions a backend's kernels cannot
// emit whole (an XLA-optimized module's output fusions with a reduction in
// them, multi-output fusions of non-elemental instructions, ...; for the GPU
// every fusion but loop and reduction fusions). Run one kernel per instruction, every
// intermediate of such a fusion would be a buffer of its own.
// RegroupExpandedInstructions fuses the expanded instructions again into
// fusions the backend does emit whole (`fusions`): the non-elemental
// instructions stay kernels of their own, and the elementwise rest becomes
// loop fusions reading them; where the backend emits them
// (kLoopAndReduction, the GPU; kLoopReductionAndOutput, the CPU), each
// reduction becomes a reduction fusion with its elementwise producers
// computed inside its loop (whatever its size: XLA fused it), and where it
// emits output fusions (the CPU) a dot or convolution read only by its
// elementwise epilogue an output fusion with it. Only expanded instructions are fused with each
// other; the module's other instructions are left as they are.
//
// Keeps the schedule valid (the fusions take their consumers' places).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/codegen/emitted_memory_model.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::codegen {

// `expanded`: the instructions the expansion added (ExpandFusions). Returns
// how many fusions were made.
absl::StatusOr<int64_t> RegroupExpandedInstructions(HloModule& module,
                                                    const std::vector<HloInstruction*>& expanded,
                                                    EmittedFusions fusions);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_FUSION_EXPANDED_FUSION_REGROUPING_H_
