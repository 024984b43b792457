#ifndef HMO_BACKENDS_GPU_CODEGEN_GPU_KERNEL_EMITTER_H_
#define HMO_BACKENDS_GPU_CODEGEN_GPU_KERNEL_EMITTER_H_

// The LLVM IR (NVPTX flavour, before math redirection and libdevice) of the
// kernels of a module: one `void <name>(i8** buffer_table)` per instruction
// that computes something, annotated as a kernel in !nvvm.annotations. The
// ABI and threading are described in gpu_kernel_module.h.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu/codegen/gpu_kernel_module.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_module.h"
#include "llvm/IR/Module.h"

namespace hmo::gpu {

struct KernelIr {
  std::string name;
  const HloInstruction* instruction = nullptr;
  // Parallel iterations of the kernel's grid-stride loop (output elements,
  // the update of an in-place dynamic-update-slice, the updates of a
  // parallel scatter, the rows of a sort; 1 for a kernel that runs in one
  // thread).
  int64_t element_count = 0;
  // See GpuKernel::prologue_copies.
  std::vector<OutputInitialization> prologue_copies;
};

// Whether the executable needs a kernel for `instruction`: false for data
// movement, control flow and collectives (all-reduce, all-gather,
// reduce-scatter, collective-permute: the executable's collective thunks),
// and for arrays without elements. True for everything that computes,
// whether or not EmitKernelIr supports it (it reports what it does not).
bool InstructionNeedsGpuKernel(const HloInstruction& instruction);

// Appends the kernels of every instruction of the entry computation and of
// the computations it reaches through while, conditional and call (in
// schedule order) to `module`: kLoop fusions and elemental instructions
// (grid-stride loop over the output, composed element generators), and dot,
// convolution, reduce, reduce-window, gather, scatter and sort through the
// shared op emitters (hmo/codegen/op_emitters.h) with a
// GridStrideLoopEmitter, no runtime calls and launcher-initialized outputs.
// Errors: UnimplementedError naming the first instruction it cannot emit.
absl::StatusOr<std::vector<KernelIr>> EmitKernelIr(const HloModule& hlo,
                                                   const BufferAssignment& assignment,
                                                   llvm::Module& module);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_CODEGEN_GPU_KERNEL_EMITTER_H_
