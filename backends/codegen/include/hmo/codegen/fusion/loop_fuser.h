#ifndef HMO_CODEGEN_FUSION_LOOP_FUSER_H_
#define HMO_CODEGEN_FUSION_LOOP_FUSER_H_

// The fusion step that the CPU backend's cpu-fusion pass (where the rules
// and the resulting structure are described) and the regrouping of expanded
// fusions (expanded_fusion_regrouping.h, both backends) share: a consumer
// absorbs its fusible producers one at a time until none qualifies; then an
// elementwise consumer of a dot or convolution may absorb it as an output
// fusion, and reductions of a shared input may become one multi-output
// reduction fusion.

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/codegen/fusion/loop_fusion_rules.h"

namespace hmo::codegen {

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
  // output fusion (kOutput) with the dot or convolution it reads, when the
  // result is one the backend emits whole (IsOutputFusionEmittable): the
  // product's only user is `consumer`, which reads it at its own output
  // index only, and the runtime computes it (IsOutputFusionProduct: a GEMM
  // or the 2-D convolution). The product then goes from the library's tiles
  // through the epilogue into the output, never into a buffer of its own.
  // Returns whether it fused.
  absl::StatusOr<bool> FuseProductIntoEpilogue(HloInstruction* consumer);

  // Fuses sibling reduction kernels of `computation` (array-shaped reduces,
  // and reduction fusions of one such reduce) that share a non-scalar
  // operand and run in one set of loops of one form (inputs of the same
  // dimensions reduced along the same ones; all column reductions or none)
  // into multi-output reduction fusions (kInput, a tuple of the reduces;
  // fusion_emitter.h: FusedRootReduces), read through get-tuple-elements:
  // the shared input is read once, the reduces' steps interleave. Kernels
  // one of which depends on another, or with control edges, stay apart. A
  // scheduled computation is left alone (one fusion cannot take two places
  // in its sequence). Returns how many fusions were made.
  absl::StatusOr<int64_t> FuseSiblingReductions(HloComputation* computation);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_FUSION_LOOP_FUSER_H_
