#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_MODULE_PREPARATION_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_MODULE_PREPARATION_H_

// What the GPU compiler does before code generation, also used by tests
// that look at the generated kernels:
//   1. on a private clone: fusions the loop-fusion emitter cannot emit
//      expanded, the call graph flattened, copy-insertion (interference-free while /
//      conditional buffers) and a complete schedule (the module's own where
//      it has one, post order elsewhere);
//   2. buffer assignment under that schedule: offsets aligned to 256 bytes
//      (what cudaMalloc guarantees and vectorized accesses want), one color
//      per memory space (0: device memory, 5: pinned host memory), every
//      constant in a slice of its own (uploaded once when the executable is
//      created);
//   3. the plan checked (buffer_plan_checker.h).

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::gpu {

inline constexpr int64_t kGpuBufferAlignment = 256;
// The memory space XLA uses for host memory (S(5) in layouts).
inline constexpr int64_t kHostMemorySpace = 5;

struct PreparedGpuModule {
  std::unique_ptr<HloModule> module;
  std::unique_ptr<BufferAssignment> assignment;  // of `module`
};

absl::StatusOr<PreparedGpuModule> PrepareGpuModule(const HloModule& module);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_MODULE_PREPARATION_H_
