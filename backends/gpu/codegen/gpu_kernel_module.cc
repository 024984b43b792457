#include "gpu/codegen/gpu_kernel_module.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "gpu/codegen/gpu_kernel_emitter.h"
#include "gpu/codegen/nvptx_compiler.h"
#include "hmo/base/status_macros.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#ifndef HMO_GPU_DEFAULT_LIBDEVICE
#define HMO_GPU_DEFAULT_LIBDEVICE "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

namespace hmo::gpu {
namespace {

// Enough threads per block for the work (whole warps), and enough blocks to
// give every element its own thread; the grid-stride loop covers any rest.
LaunchDimensions ChooseLaunch(int64_t elements, int64_t threads_per_block) {
  constexpr int64_t kWarp = 32;
  constexpr int64_t kMaxBlocks = 2147483647;  // gridDim.x limit
  LaunchDimensions launch;
  const int64_t warps = std::max<int64_t>(1, (elements + kWarp - 1) / kWarp);
  launch.threads_per_block = std::min(threads_per_block, warps * kWarp);
  launch.blocks = std::clamp<int64_t>((elements + launch.threads_per_block - 1) / launch.threads_per_block, 1,
                                      kMaxBlocks);
  return launch;
}

}  // namespace

const GpuKernel* GpuKernelModule::KernelFor(const HloInstruction* instruction) const {
  for (const GpuKernel& kernel : kernels) {
    if (kernel.instruction == instruction) return &kernel;
  }
  return nullptr;
}

std::string DefaultLibdevicePath() {
  if (const char* path = std::getenv("HMO_LIBDEVICE_PATH"); path != nullptr && *path != '\0') return path;
  return HMO_GPU_DEFAULT_LIBDEVICE;
}

absl::StatusOr<GpuKernelModule> EmitGpuKernels(const HloModule& module, const BufferAssignment& assignment,
                                               const GpuCodegenOptions& options) {
  if (options.threads_per_block <= 0 || options.threads_per_block > 1024 || options.threads_per_block % 32 != 0) {
    return absl::InvalidArgumentError("GPU codegen: threads_per_block must be a multiple of 32 in [32, 1024]");
  }
  llvm::LLVMContext context;
  llvm::Module llvm_module("hmo_gpu." + module.name(), context);
  HMO_ASSIGN_OR_RETURN(std::vector<KernelIr> kernels, EmitKernelIr(module, assignment, llvm_module));

  GpuKernelModule result;
  std::vector<std::string> names;
  for (const KernelIr& kernel : kernels) {
    names.push_back(kernel.name);
    GpuKernel entry;
    entry.name = kernel.name;
    entry.instruction = kernel.instruction;
    entry.element_count = kernel.element_count;
    entry.prologue_copies = kernel.prologue_copies;
    entry.launch = ChooseLaunch(kernel.element_count, options.threads_per_block);
    result.kernels.push_back(std::move(entry));
  }
  NvptxOptions nvptx;
  nvptx.gpu_architecture = options.gpu_architecture;
  nvptx.ptx_feature = options.ptx_feature;
  nvptx.opt_level = options.opt_level;
  nvptx.libdevice_path = options.libdevice_path.empty() ? DefaultLibdevicePath() : options.libdevice_path;
  nvptx.dump_ir_to = options.dump_ir_to;
  HMO_ASSIGN_OR_RETURN(PtxResult ptx, CompileToPtx(llvm_module, names, nvptx));
  result.ptx = std::move(ptx.ptx);
  result.libdevice_path = std::move(ptx.linked_libdevice);
  return result;
}

}  // namespace hmo::gpu
