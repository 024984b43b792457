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
// neither the reduce's inputs nor their producers are materialised. And of
// an output fusion: a dot's or convolution's epilogue applied to the
// library's product tiles (IsOutputFusionEmittable).

#include <vector>

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
// operands, the fused root a reduce (one or several inputs) or a tuple of
// sibling reduces (a multi-output reduction fusion: FusedRootReduces),
// every other fused instruction elemental on arrays.
bool IsReductionFusionEmittable(const HloInstruction& fusion);

// The reduces a reduction fusion's root computes: the root when it is a
// reduce; the tuple's operands when the root is a tuple of array-shaped
// reduces read by the tuple only, each once, all over inputs of the same
// dimensions reduced along the same dimensions (EmitReduceLoops runs them
// in one pass, output i the i-th reduce's); else none.
std::vector<const HloInstruction*> FusedRootReduces(const HloInstruction& fusion);

// Whether EmitFusionKernel emits `fusion` as an output fusion (XLA's kOutput
// fusions: a dot or convolution with its elementwise epilogue): array
// operands and root; exactly one dot or convolution, whose operands are
// fused parameters and which the runtime computes (IsOutputFusionProduct);
// the root of the product's dimensions, reached from it only through
// elementwise instructions (ReachesRootElementwise); every other fused
// instruction elemental. The kernel calls the runtime's epilogue GEMM or
// convolution (runtime_functions.h) with a generated epilogue computing the
// root over each tile of the product: the product never is in a buffer of
// the plan. Needs a target with runtime calls (the CPU's).
bool IsOutputFusionEmittable(const HloInstruction& fusion);

// Whether `product` can be the product of an output fusion: a dot a runtime
// GEMM computes (gemm_plan.h: RuntimeGemmElementTypes, GemmPlanFor) or a
// convolution the runtime's 2-D convolution computes
// (convolution_plan.h: IsRuntimeConvolution2D).
bool IsOutputFusionProduct(const HloInstruction& product);

// Whether every use of `value` (an instruction of a fused computation)
// leads to the computation's root only through elemental instructions that
// are elementwise on it and have its dimensions: the root at an index then
// reads `value` at that index only.
bool ReachesRootElementwise(const HloInstruction& value);

// IsLoopFusionEmittable, IsReductionFusionEmittable or
// IsOutputFusionEmittable: the fusions the CPU backend keeps whole.
bool IsFusionEmittable(const HloInstruction& fusion);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_FUSION_EMITTER_H_
