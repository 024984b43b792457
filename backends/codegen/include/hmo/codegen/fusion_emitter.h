#ifndef HMO_CODEGEN_FUSION_EMITTER_H_
#define HMO_CODEGEN_FUSION_EMITTER_H_

// The kernel of a loop fusion: ONE loop nest over the fusion's output in
// which the fused computation's element generators are composed (parameters
// read the fusion operands' arrays; no intermediate is materialised).
//   - An output that is a dynamic-update-slice (possibly under bitcasts) of
//     a fused parameter whose buffer is that output's buffer runs in place:
//     only the update region is written, after the other outputs.
//   - A tuple root (multi-output fusion) writes every other output in the
//     same loop; those outputs must have the same dimensions (else
//     UnimplementedError).
//   - When every fused instruction is elementwise on arrays of the output's
//     dimensions and every parameter has the output's layout, the loop is a
//     single flat loop over the elements (what the vectorizer handles best).
// And the kernel of a reduction fusion (XLA's kInput fusions rooted at a
// reduce): the reduce's loops (EmitReduceLoops) with the fused elementwise
// expressions computed inside the reduction loop, element by element, so
// neither the reduce's inputs nor their producers are materialised.

#include "absl/status/status.h"
#include "hmo/codegen/kernel_emit_context.h"

namespace hmo::codegen {

absl::Status EmitFusionKernel(KernelEmitContext& context);

// Whether EmitFusionKernel can emit `fusion` whatever buffers it gets:
// array operands, every fused instruction elemental (a tuple only as the
// root), the outputs of a multi-output fusion of one set of dimensions.
// Compilers expand the other fusions (hmo/rewrites/fusion_expansion.h) and
// run their instructions as kernels of their own.
bool IsLoopFusionEmittable(const HloInstruction& fusion);

// Whether EmitFusionKernel emits `fusion` as a reduction fusion: array
// operands, the fused root a reduce (one or several inputs), every other
// fused instruction elemental on arrays.
bool IsReductionFusionEmittable(const HloInstruction& fusion);

// IsLoopFusionEmittable or IsReductionFusionEmittable: the fusions a backend
// on these emitters keeps whole.
bool IsFusionEmittable(const HloInstruction& fusion);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_FUSION_EMITTER_H_
