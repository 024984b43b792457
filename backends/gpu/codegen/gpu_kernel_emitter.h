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
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_module.h"
#include "llvm/IR/Module.h"

namespace hmo::gpu {

struct KernelIr {
  std::string name;
  const HloInstruction* instruction = nullptr;
  // Size of the iteration space (output elements, or the update of an
  // in-place dynamic-update-slice).
  int64_t element_count = 0;
};

// Whether the executable needs a kernel for `instruction`: false for data
// movement, control flow and collectives (all-reduce, all-gather,
// reduce-scatter, collective-permute: the executable's collective thunks),
// and for arrays without elements.
bool InstructionNeedsGpuKernel(const HloInstruction& instruction);

// Appends the kernels of every instruction of the entry computation and of
// the computations it reaches through while, conditional and call (in
// schedule order) to `module`.
absl::StatusOr<std::vector<KernelIr>> EmitKernelIr(const HloModule& hlo,
                                                   const BufferAssignment& assignment,
                                                   llvm::Module& module);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_CODEGEN_GPU_KERNEL_EMITTER_H_
