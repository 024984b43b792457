#ifndef HMO_BACKENDS_GPU_CODEGEN_NVPTX_COMPILER_H_
#define HMO_BACKENDS_GPU_CODEGEN_NVPTX_COMPILER_H_

// LLVM IR -> PTX with LLVM's NVPTX target, the way XLA:GPU does it:
//   1. target triple nvptx64-nvidia-cuda and the target's data layout;
//   2. math calls redirected to libdevice (libdevice_math.h); when any is
//      used, libdevice.10.bc is linked (only the needed functions) with
//      module flag nvvm-reflect-ftz = 0 (no flush-to-zero);
//   3. everything but the kernels is internalized, the module verified and
//      optimized with the target's pass pipeline (which runs NVVMReflect to
//      resolve libdevice's __nvvm_reflect queries);
//   4. any remaining call to an undefined non-intrinsic function is an
//      error (it would fail at ptxas / load time);
//   5. the NVPTX back end prints PTX.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"

namespace hmo::gpu {

struct NvptxOptions {
  std::string gpu_architecture = "sm_80";
  std::string ptx_feature = "+ptx75";
  int opt_level = 2;
  std::string libdevice_path;  // must be set when the module uses math
  std::string dump_ir_to;      // optional
};

struct PtxResult {
  std::string ptx;
  // Empty when libdevice was not needed.
  std::string linked_libdevice;
};

// `kernel_names` stay external; `module` is consumed (modified in place).
absl::StatusOr<PtxResult> CompileToPtx(llvm::Module& module, const std::vector<std::string>& kernel_names,
                                       const NvptxOptions& options);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_CODEGEN_NVPTX_COMPILER_H_
