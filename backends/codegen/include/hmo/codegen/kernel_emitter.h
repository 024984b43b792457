#ifndef HMO_CODEGEN_KERNEL_EMITTER_H_
#define HMO_CODEGEN_KERNEL_EMITTER_H_

// The body of the kernel computing one instruction: dispatches fusions to
// fusion_emitter.h, dot/convolution/reduce/... to op_emitters.h, and emits
// elemental instructions as one loop nest over their output.

#include <cstdint>

#include "absl/status/status.h"
#include "hmo/codegen/kernel_emit_context.h"

namespace hmo::codegen {

// Whether the instruction is computed by a kernel (else it is data movement
// or control flow that the computation's function handles).
bool NeedsKernel(const HloInstruction& instruction);

// Emits the kernel body for context.instruction().
absl::Status EmitKernelBody(KernelEmitContext& context);

// Whether EmitKernelBody emits `instruction` with an op emitter
// (op_emitters.h) rather than element by element.
bool HasOpEmitter(const HloInstruction& instruction);

// Whether EmitKernelBody emits `instruction`'s kernel as nothing but one
// loop over its output (KernelEmitContext::EmitOutputLoopNest /
// EmitOutputLinearLoop / EmitParallelLoop, and entry-block allocas): an
// elementwise instruction, a loop fusion without dynamic-update-slices, an
// array-shaped reduce or reduction fusion (or a multi-output one of
// array-shaped reduces) that is not a column reduction (op_emitters.h). Such a kernel can be
// partitioned (KernelEmitContext::SetOutputPartition) and its parts run concurrently, provided its
// output shares no bytes with an operand.
bool IsPartitionableKernel(const HloInstruction& instruction);

// A part of a partitioned kernel does at least this many bytes of work
// (written, or read by a reduction): below it, handing a part to another
// thread costs more than computing it. A kernel is split only from twice
// this size.
inline constexpr int64_t kMinPartBytes = 128 * 1024;

// A reduction computed inside another kernel's loop (a reduce fused into its
// consumers, or a reduce or reduce-window inside a loop fusion) reads less
// than this: one that reads more keeps a kernel of its own, whose loop runs
// in parts and vectorized, where inside a loop it would run scalar (a float
// sum is not reassociated) on one thread per output element.
inline constexpr int64_t kMaxInnerReductionBytes = 2 * kMinPartBytes;

// One loop over `output`'s shape writing generator(index) at each index;
// a single flat loop over the elements when `flat` (the generator then
// receives a rank-1 index; the caller guarantees every array it reads has
// the output's dimensions and layout).
absl::Status EmitElementLoop(KernelEmitContext& context, const IrArray& output,
                             const ElementGenerator& generator, bool flat);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_KERNEL_EMITTER_H_
