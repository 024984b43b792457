#ifndef HMO_BACKENDS_GPU_CODEGEN_GPU_KERNEL_MODULE_H_
#define HMO_BACKENDS_GPU_CODEGEN_GPU_KERNEL_MODULE_H_

// EmitGpuKernels: PTX for the kernels of a scheduled, buffer-assigned module,
// generated with the shared elemental emitters (backends/codegen)
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
// Non-elemental operations (dot, convolution, reduce, reduce-window,
// gather, scatter, sort) use the shared op emitters
// (hmo/codegen/op_emitters.h) with a GPU target: their outermost
// loop is the grid-stride loop (over the output; for scatter over the
// updates; for sort over the rows, each thread insertion-sorting its row),
// inner loops (contractions, windows, reductions) run sequentially in the
// thread, and no runtime function is called (dot and convolution are
// direct loop nests, not GEMM libraries). A scatter whose duplicate indices
// could race runs in parallel only when that is harmless: unique_indices,
// an overwriting combiner, or a single add on f32/f64/s32/u32/s64/u64 (then
// with atomic adds); any other combiner runs the whole update loop in
// global thread 0 (element_count 1). Kernels use no shared memory, no
// barriers and no special register but %tid.x, %ctaid.x, %ntid.x,
// %nctaid.x: each is correct for any launch dimensions.
//
// Prologue copies: scatter and sort update their outputs in place, starting
// from copies of their operands; a copy followed by updates would need a
// grid-wide barrier, so the kernel does not copy. GpuKernel::prologue_copies
// lists them: before launching the kernel, the executable copies the bytes
// of operand `operand_number`'s slice into the output slice at
// `output_index` (same byte size and layout), skipping a copy whose two
// slices are the same (the in-place case). The copies of one kernel are
// independent of each other.
//
// Kernels exist for: kLoop fusions, the elemental instructions of
// ElementalIrEmitter (elementwise ops, convert, broadcast, transpose, copy,
// slice, concatenate, pad, iota, ...), and dot, convolution, reduce,
// reduce-window, gather, scatter and sort. Data movement (tuple,
// get-tuple-element, bitcast, parameter, constant, MoveToHost/MoveToDevice)
// control flow (while, conditional, call) and collectives (all-reduce,
// all-gather, reduce-scatter, collective-permute) get no kernel: they are
// the executable's business. Anything else (non-loop fusions,
// select-and-scatter, custom calls, an op configuration the op emitter
// rejects, ...) is an UnimplementedError naming the instruction.
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
#include "hmo/ir/shape.h"

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

// Operand `operand_number` of the kernel's instruction is copied (bytes)
// into the instruction's output at `output_index` before the kernel runs,
// unless the two slices are the same. See "Prologue copies" above.
struct OutputInitialization {
  int64_t operand_number = 0;
  ShapeIndex output_index;
};

struct GpuKernel {
  using OutputInitialization = ::hmo::gpu::OutputInitialization;

  // The .entry name in the PTX (a sanitized, unique form of the
  // instruction's name).
  std::string name;
  // The instruction it computes (an instruction of the module passed to
  // EmitGpuKernels).
  const HloInstruction* instruction = nullptr;
  LaunchDimensions launch;
  // Parallel iterations of the kernel's grid-stride loop: output elements,
  // the update of an in-place dynamic-update-slice, the updates of a
  // parallel scatter, the rows of a sort; 1 for a kernel whose work runs in
  // one thread (a serialized scatter); 0 when there is nothing to do (the
  // prologue copies still apply). `launch` gives each iteration a thread.
  int64_t element_count = 0;
  // Copies the executable makes, in this order, before launching the
  // kernel (scatter and sort: one per operand); empty for other kernels.
  std::vector<OutputInitialization> prologue_copies;
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
