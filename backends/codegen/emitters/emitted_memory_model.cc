#include "hmo/codegen/emitted_memory_model.h"

#include <utility>

#include "hmo/codegen/fusion_emitter.h"
#include "hmo/rewrites/execution_preparation.h"

namespace hmo::codegen {

bool EmitsFusionWhole(EmittedFusions fusions, const HloInstruction& fusion) {
  switch (fusions) {
    case EmittedFusions::kLoop:
      return IsLoopFusionEmittable(fusion);
    case EmittedFusions::kLoopAndReduction:
      return IsLoopFusionEmittable(fusion) || IsReductionFusionEmittable(fusion);
    case EmittedFusions::kLoopReductionAndOutput:
      return IsFusionEmittable(fusion);
  }
  return false;
}

TargetMemoryModel EmittedMemoryModel(
    std::string target, int64_t alignment, EmittedFusions fusions,
    std::function<absl::Status(HloModule&, const std::vector<HloInstruction*>&)> regroup_expanded) {
  TargetMemoryModel model;
  model.target = std::move(target);
  model.assignment.pointer_size = 8;
  model.assignment.alignment = alignment;
  model.assignment.heap_algorithm = TempHeapAlgorithm::kXla;
  model.assignment.allocate_buffers_for_constants = true;
  model.prepare = [fusions, regroup_expanded](const HloModule& module) {
    ExecutionPreparationOptions preparation;
    preparation.regroup_expanded = regroup_expanded;
    preparation.expand_fusion = [fusions](const HloInstruction& fusion) {
      return !EmitsFusionWhole(fusions, fusion);
    };
    return CloneForExecution(module, preparation);
  };
  return model;
}

}  // namespace hmo::codegen
