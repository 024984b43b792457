#ifndef HMO_BACKENDS_CPU_FUSION_LOOP_FUSER_H_
#define HMO_BACKENDS_CPU_FUSION_LOOP_FUSER_H_

// The fusion step that cpu-fusion (cpu_instruction_fusion.h, where the rules
// and the resulting structure are described) and the regrouping of expanded
// fusions (expanded_fusion_regrouping.h) share: a consumer absorbs its
// fusible producers one at a time until none qualifies; then an elementwise
// consumer of a dot may absorb the dot as an output fusion.

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "loop_fusion_rules.h"

namespace hmo::cpu {

class LoopFuser {
 public:
  // `hosts`: which reductions host their producers. `may_fuse`, when given,
  // limits the producers to those it accepts (on top of the rules).
  LoopFuser(HloModule& module, ReductionHosts hosts,
            std::function<bool(const HloInstruction& producer)> may_fuse = nullptr);
  ~LoopFuser();

  // Fuses into `consumer` until none of its operands qualifies (the consumer
  // becomes a fusion at the first). Returns whether anything was fused.
  absl::StatusOr<bool> FuseIntoConsumer(HloInstruction* consumer);

  // Makes `consumer` (a kLoop fusion or an elementwise instruction) an
  // output fusion (kOutput) with the dot it reads, when the result is one
  // the backend emits whole (codegen::IsOutputFusionEmittable): the dot's
  // only user is `consumer`, which reads it at its own output index only, and
  // a runtime GEMM computes it. The product then goes from the library's
  // tiles through the epilogue into the output, never into a buffer of its
  // own. Returns whether it fused.
  absl::StatusOr<bool> FuseDotIntoEpilogue(HloInstruction* consumer);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_FUSION_LOOP_FUSER_H_
