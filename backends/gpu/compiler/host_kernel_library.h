#ifndef HMO_BACKENDS_GPU_COMPILER_HOST_KERNEL_LIBRARY_H_
#define HMO_BACKENDS_GPU_COMPILER_HOST_KERNEL_LIBRARY_H_

// HostKernelLibrary: a module's GPU kernels compiled for the host CPU, for
// the host-emulated device (host_emulated_device_runtime.h).
//
// The kernel IR is the one EmitGpuKernels turns into PTX (EmitKernelIr,
// same emitters, same names); only the four special registers a kernel
// reads (threadIdx.x, blockIdx.x, blockDim.x, gridDim.x) are rewritten into
// loads of host globals, and the module is JIT-compiled with the CPU
// backend's CpuJit (math calls resolve to the host's libm). Run calls the
// kernel once per (block, thread) of a reduced grid: every kernel is a
// grid-stride loop, correct for any launch, so a small grid covers all the
// work while still giving threads without work and several strides.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu/codegen/gpu_kernel_emitter.h"
#include "gpu/codegen/gpu_kernel_module.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::codegen {
class CpuJit;
}

namespace hmo::gpu {

class HostKernelLibrary {
 public:
  // The grid Run uses for a launch: at most kMaxBlocks blocks of at most
  // kMaxThreads threads.
  static constexpr int64_t kMaxBlocks = 3;
  static constexpr int64_t kMaxThreads = 32;

  // Compiles the kernels of `module` (scheduled and assigned as for
  // EmitGpuKernels). Errors: those of EmitKernelIr, and Internal for JIT
  // failures.
  static absl::StatusOr<std::unique_ptr<HostKernelLibrary>> Compile(const HloModule& module,
                                                                    const BufferAssignment& assignment,
                                                                    int opt_level);
  ~HostKernelLibrary();

  // The kernel's index by its name, or NotFound.
  absl::StatusOr<int64_t> Find(const std::string& name) const;
  // Runs kernel `index` over the reduced grid of `launch` with
  // `buffer_table`. Thread-safe: the special registers are globals of the
  // JIT-compiled module, so concurrent calls (replicas sharing the library)
  // run one after the other. Kernels never wait for each other, so that
  // cannot deadlock.
  void Run(int64_t index, const LaunchDimensions& launch, char** buffer_table) const;
  int64_t kernel_count() const { return static_cast<int64_t>(functions_.size()); }
  // The kernels as EmitKernelIr described them (same order as the indices;
  // instructions of the module passed to Compile).
  const std::vector<KernelIr>& kernels() const { return kernels_; }

 private:
  using KernelFunction = void (*)(char**);
  HostKernelLibrary() = default;

  std::unique_ptr<codegen::CpuJit> jit_;
  std::vector<KernelIr> kernels_;
  std::vector<std::string> names_;
  std::vector<KernelFunction> functions_;
  // The special-register globals: tid, ctaid, ntid, nctaid (.x).
  int32_t* registers_[4] = {nullptr, nullptr, nullptr, nullptr};
  // Held for each Run: the registers are shared by every caller.
  mutable std::mutex run_mutex_;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_HOST_KERNEL_LIBRARY_H_
