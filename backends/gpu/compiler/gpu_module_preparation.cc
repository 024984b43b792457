#include "gpu/compiler/gpu_module_preparation.h"

#include <utility>
#include <vector>

#include "hmo/analysis/buffer_plan_checker.h"
#include "hmo/base/status_macros.h"
#include "hmo/codegen/emitted_memory_model.h"
#include "hmo/codegen/fusion/expanded_fusion_regrouping.h"

namespace hmo::gpu {

TargetMemoryModel GpuMemoryModel(std::string target) {
  // The fusions its kernels cannot emit (all but loop and reduction
  // fusions: an output fusion's product is a cuBLAS call, without an
  // epilogue) are expanded, and their elementwise instructions fused again
  // into loop fusions and reduction fusions around the others.
  constexpr codegen::EmittedFusions kFusions = codegen::EmittedFusions::kLoopAndReduction;
  TargetMemoryModel model = codegen::EmittedMemoryModel(
      std::move(target), kGpuBufferAlignment, kFusions,
      [](HloModule& module, const std::vector<HloInstruction*>& expanded) {
        return codegen::RegroupExpandedInstructions(module, expanded, kFusions).status();
      });
  // Constants are uploaded into the device arena once; thread-local values
  // get their slices there too.
  model.arenas_hold_constants = true;
  model.arenas_hold_thread_locals = true;
  return model;
}

absl::StatusOr<PreparedGpuModule> PrepareGpuModule(const HloModule& module) {
  HMO_ASSIGN_OR_RETURN(PreparedGpuModule prepared, PlanTargetMemory(module, GpuMemoryModel("gpu")));
  HMO_RETURN_IF_ERROR(CheckBufferPlan(*prepared.assignment));
  return prepared;
}

}  // namespace hmo::gpu
