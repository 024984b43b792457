#ifndef HMO_BACKENDS_GPU_CODEGEN_GPU_KERNEL_MODULE_H_
#define HMO_BACKENDS_GPU_CODEGEN_GPU_KERNEL_MODULE_H_

// EmitGpuKernels: PTX for the kernels of a scheduled, buffer-assigned module,
// generated with the CPU backend's elemental emitters (backends/cpu/codegen)
// and LLVM's NVPTX target.
//
// Kernel ABI: every kernel is `.entry <name>(char** buffer_table)`.
// buffer_table is a DEVICE pointer to an array holding, for each
// BufferAllocation i of the assignment, the device (or mapped pinned host)
// address of that allocation; a value lives at buffer_table[slice.index] +
// slice.offset, dense in its layout's minor_to_major order. One table serves
// every kernel of the module, so the executable uploads it once.
//
// Threading: a 1-D grid; thread t of the grid computes the output elements
// at physical positions t, t + gridDim.x * blockDim.x, ... (grid-stride), so
// any launch covers the whole output. The position is delinearized by the
// output's layout into a logical index and the element generators of the
// instruction (or of the fused computation, composed) compute the value.
// Multi-output loop fusions write every output at the same logical index;
// an in-place dynamic-update-slice (root of a fusion, or alone) iterates
// over the update only (a fused one whose update also reads the buffer it
// updates would race between threads: UnimplementedError).
//
// Kernels exist for: kLoop fusions, the elemental instructions of
// ElementalIrEmitter (elementwise ops, convert, broadcast, transpose, copy,
// slice, concatenate, pad, iota, ...). Data movement (tuple,
// get-tuple-element, bitcast, parameter, constant, MoveToHost/MoveToDevice)
// control flow (while, conditional, call) and collectives (all-reduce,
// all-gather, reduce-scatter, collective-permute) get no kernel: they are
// the executable's business. Anything else (dot, reduce, convolution, sort,
// collectives, non-loop fusions, ...) is an UnimplementedError naming the
// instruction.
//
// Math: the CPU emitter calls LLVM intrinsics (llvm.exp.*) and libm names
// (tanhf); they are renamed to libdevice functions (libdevice_math.h),
// libdevice.10.bc is linked (only what is used) and internalized.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::gpu {

struct GpuCodegenOptions {
  // "sm_80": PTX for compute capability 8.0 runs on every later GPU
  // (the driver JIT-compiles it), including sm_90.
  std::string gpu_architecture = "sm_80";
  // PTX ISA feature of the NVPTX target ("+ptx75" is LLVM 14's newest).
  std::string ptx_feature = "+ptx75";
  // LLVM optimization level (0-3) of the IR before PTX emission.
  int opt_level = 2;
  // libdevice bitcode; empty: DefaultLibdevicePath().
  std::string libdevice_path;
  // Threads per block of every launch (a multiple of 32, at most 1024).
  int64_t threads_per_block = 256;
  // When not empty, the LLVM IR after linking and optimization is written
  // here (debugging).
  std::string dump_ir_to;
};

struct LaunchDimensions {
  int64_t threads_per_block = 1;
  int64_t blocks = 1;
};

struct GpuKernel {
  // The .entry name in the PTX (a sanitized, unique form of the
  // instruction's name).
  std::string name;
  // The instruction it computes (an instruction of the module passed to
  // EmitGpuKernels).
  const HloInstruction* instruction = nullptr;
  LaunchDimensions launch;
  // Elements (of the iteration space) the kernel covers.
  int64_t element_count = 0;
};

struct GpuKernelModule {
  std::string ptx;
  // In no particular order; look up by instruction with KernelFor.
  std::vector<GpuKernel> kernels;
  // The libdevice file that was linked (empty when no math function was
  // used and none was needed).
  std::string libdevice_path;

  // The kernel of `instruction`, or null.
  const GpuKernel* KernelFor(const HloInstruction* instruction) const;
};

// The libdevice bitcode: $HMO_LIBDEVICE_PATH when set, else the toolkit's
// nvvm/libdevice/libdevice.10.bc found at configure time (or
// /usr/local/cuda/...).
std::string DefaultLibdevicePath();

// Errors: UnimplementedError naming the first instruction without GPU
// support (see above); NotFound when libdevice is needed but missing;
// Internal for LLVM failures (invalid IR, no NVPTX target).
absl::StatusOr<GpuKernelModule> EmitGpuKernels(const HloModule& module,
                                               const BufferAssignment& assignment,
                                               const GpuCodegenOptions& options);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_CODEGEN_GPU_KERNEL_MODULE_H_
