#ifndef HMO_CODEGEN_EMITTED_MEMORY_MODEL_H_
#define HMO_CODEGEN_EMITTED_MEMORY_MODEL_H_

// The memory model (hmo/analysis/target_memory_model.h) both executing
// backends share, as far as it follows from these emitters: 8-byte tuple
// pointers, XLA's temp heap (so that a target's figures of XLA's dumps are
// XLA's memory_analysis(); hmo's tight packer costs seconds on a prepared
// module at 64- or 256-byte alignment, too much for a measure every pass
// and every compile repeats), every constant with an allocation (constants then
// flow through tuples, loops and calls like any other value), and the
// preparation CloneForExecution applies with the fusions the backend's
// kernels cannot emit expanded. A backend sets its alignment, which fusions
// it emits whole, and whether its arenas hold constants and thread-local
// values.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hmo/analysis/target_memory_model.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::codegen {

// The fusions a backend's kernels emit whole (fusion_emitter.h); the
// preparation expands the others into their instructions.
enum class EmittedFusions {
  kLoop,                    // IsLoopFusionEmittable
  kLoopAndReduction,        // and IsReductionFusionEmittable (the GPU's)
  kLoopReductionAndOutput,  // IsFusionEmittable: and output fusions (the CPU's)
};

// Whether a backend emitting `fusions` keeps `fusion` whole (else the
// preparation expands it).
bool EmitsFusionWhole(EmittedFusions fusions, const HloInstruction& fusion);

// `regroup_expanded`, when given, fuses the expanded fusions' instructions
// again into fusions the backend emits (ExecutionPreparationOptions).
TargetMemoryModel EmittedMemoryModel(
    std::string target, int64_t alignment, EmittedFusions fusions,
    std::function<absl::Status(HloModule&, const std::vector<HloInstruction*>&)> regroup_expanded =
        nullptr);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_EMITTED_MEMORY_MODEL_H_
