#ifndef HMO_CODEGEN_OP_EMITTERS_H_
#define HMO_CODEGEN_OP_EMITTERS_H_

// Kernel bodies of the non-elemental operations. Each function emits the
// whole body of the kernel computing context.instruction() (whose opcode is
// the one in the function's name) into the kernel the context describes:
// it reads the operands' arrays and writes the output array(s) through the
// context, and returns with the builder where the kernel returns.
// Errors (e.g. an unsupported element type or configuration) are
// UnimplementedError / InvalidArgumentError naming the instruction.
//
// Each emits its outermost loop over the output (for scatter: over the
// updates; for sort: over the rows) with context.EmitParallelLoop and every
// inner loop sequentially, so the same body serves a sequential target (CPU)
// and a concurrent one (GPU: one grid-stride loop). Target differences
// (KernelTarget in kernel_emit_context.h):
//  - runtime calls unavailable: dot and convolution never call the runtime
//    GEMM / conv2d; sort sorts each row with an inlined insertion sort;
//  - launcher initializes outputs: scatter and sort record their
//    operand -> output copies (context.output_initializations()) instead of
//    emitting them, and update the outputs in place;
//  - concurrent parallel iterations: scatter picks a parallel, atomic-add or
//    single-thread update loop (scatter_emitter.cc).

#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/kernel_emit_context.h"

namespace hmo::codegen {

absl::Status EmitDot(KernelEmitContext& context);               // dot_emitter.cc
absl::Status EmitConvolution(KernelEmitContext& context);       // convolution_emitter.cc
// The HmoCpuConv2DShape (runtime_functions.h) of `conv`, an
// IsRuntimeConvolution2D convolution of any computation, stored in the
// context's entry frame: the runtime convolutions' shape argument (i8*).
llvm::Value* EmitRuntimeConv2DShape(KernelEmitContext& context,
                                    const HloInstruction& conv);  // convolution_emitter.cc
absl::Status EmitReduce(KernelEmitContext& context);            // reduce_emitter.cc
// The loops of reduce `reduce` (of any computation) writing `outputs`, with
// inputs[i] / inits[i] producing its operands i / N+i in the compute type:
// EmitReduce with array readers, a reduction fusion with fused expressions.
// A reduce whose kept dimensions are all more minor in memory than its
// reduced ones and whose outputs hold the accumulator type exactly (f32,
// f64, 32/64-bit integers): EmitReduceLoops emits it, when its kernel is
// not partitioned, runs on one thread and its outputs share no byte with
// what it reads, as a column reduction (accumulating in the outputs, input
// in memory order).
bool IsColumnReduction(const HloInstruction& reduce);
// One reduce of a kernel's reduction loops: its N inputs and N inits
// (element generators of the compute type) and its N outputs.
struct ReduceLoopOperands {
  const HloInstruction* reduce = nullptr;
  std::vector<ElementGenerator> inputs, inits;
  std::vector<IrArray> outputs;
};
// The loops of one or several reduces of the same input dimensions and
// reduced dimensions (a multi-output reduction fusion's): one pass over the
// input indices in which every reduce takes its step, each in the order it
// takes alone. A column reduction when every reduce is one
// (IsColumnReduction), the kernel is not partitioned, one thread runs its
// loops (not a GPU's grid) and its outputs share no byte with what it reads.
absl::Status EmitReduceLoops(KernelEmitContext& context,
                             const std::vector<ReduceLoopOperands>& reduces);
absl::Status EmitReduceWindow(KernelEmitContext& context);      // reduce_window_emitter.cc
absl::Status EmitGather(KernelEmitContext& context);            // gather_emitter.cc
absl::Status EmitScatter(KernelEmitContext& context);           // scatter_emitter.cc
absl::Status EmitSort(KernelEmitContext& context);              // sort_emitter.cc
absl::Status EmitSelectAndScatter(KernelEmitContext& context);  // select_and_scatter_emitter.cc
// topk, and the TopK custom call.
absl::Status EmitTopK(KernelEmitContext& context);  // topk_emitter.cc

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_OP_EMITTERS_H_
