#ifndef HMO_BACKENDS_CPU_CODEGEN_KERNEL_DEPENDENCIES_H_
#define HMO_BACKENDS_CPU_CODEGEN_KERNEL_DEPENDENCIES_H_

// Which kernels of a stretch of a computation's schedule must wait for
// which: the buffer plan's view (the slices the assignment gives each
// value), as the plan checker sees it. Kernel j waits for an earlier kernel
// i when one of them writes a byte the other reads or writes (i's writes
// against j's reads and writes, i's reads against j's writes); any other
// pair touches disjoint bytes, or only reads the same ones, and may run at
// the same time. A kernel reads its operands' slices (every leaf) and writes
// its own.

#include <cstdint>
#include <vector>

#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::cpu {

// For each kernel of `kernels` (in schedule order), the earlier kernels it
// waits for directly: a kernel another predecessor already waits for
// (transitively) is left out, so the lists hold no implied edge.
std::vector<std::vector<int64_t>> KernelPredecessors(
    const BufferAssignment& assignment, const std::vector<const HloInstruction*>& kernels);

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_CODEGEN_KERNEL_DEPENDENCIES_H_
