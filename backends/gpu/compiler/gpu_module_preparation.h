#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_MODULE_PREPARATION_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_MODULE_PREPARATION_H_

// What the GPU compiler does before code generation, also used by tests
// that look at the generated kernels: the module planned under
// GpuMemoryModel (PlanTargetMemory):
//   1. on a private clone: fusions the loop-fusion emitter cannot emit
//      expanded, the call graph flattened, copy-insertion (interference-free
//      while / conditional buffers) and a complete schedule;
//   2. buffer assignment under that schedule: offsets aligned to 256 bytes
//      (what cudaMalloc guarantees and vectorized accesses want), one color
//      per memory space (0: device memory, 5: pinned host memory), every
//      constant in a slice of its own (uploaded once when the executable is
//      created), XLA's temp heap;
//   3. two arenas: device memory (every space but S(5), constants and
//      thread-local allocations included) and pinned host memory;
//   4. the plan checked (buffer_plan_checker.h).

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::gpu {

inline constexpr int64_t kGpuBufferAlignment = 256;

// The "gpu" (and "gpu-emulated") target's memory model.
TargetMemoryModel GpuMemoryModel(std::string target);

using PreparedGpuModule = TargetMemoryPlan;

absl::StatusOr<PreparedGpuModule> PrepareGpuModule(const HloModule& module);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_MODULE_PREPARATION_H_
