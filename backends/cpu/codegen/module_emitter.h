#ifndef HMO_BACKENDS_CPU_CODEGEN_MODULE_EMITTER_H_
#define HMO_BACKENDS_CPU_CODEGEN_MODULE_EMITTER_H_

// EmitModule: the LLVM IR of a scheduled HLO module for the CPU backend.
//
// ABI: the module defines `void <entry_function_name>(char** buffer_table)`
// (external linkage). buffer_table[i] is the base address of
// BufferAllocation i of `assignment` (every allocation, every memory space);
// the caller copies the parameters into their allocations before the call
// and reads the results from the root's slices after it. The address of a
// value is buffer_table[slice.index] + slice.offset; arrays are dense in
// their layout's minor_to_major order (the descending default when absent).
//
// Structure: every instruction that computes something becomes a kernel,
// an internal function `void <sanitized instruction name>(char**)`; every
// non-fusion computation the entry reaches (through while, conditional and
// call) becomes an internal function calling its instructions' kernels in
// schedule order, with while loops, conditionals and calls as control flow.
// Values that usually share a slice by alias analysis (tuple and
// get-tuple-element elements, bitcast, opt-barrier, the while state, call
// and branch parameters/results) are copied when their slices differ.
// Constants are private read-only globals, copied into their slice when
// they have one.
//
// Errors: UnimplementedError naming the instruction and opcode for what the
// backend does not support (collectives, infeed/outfeed, rng, custom-calls
// other than MoveToHost/MoveToDevice/annotate_device_placement, complex and
// sub-byte types, non-loop fusions, ...).

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_module.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace hmo::cpu {

struct CodegenOptions {
  std::string entry_function_name = "hmo_entry";
};

struct EmittedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::string entry_function_name;
  // Number of kernel functions emitted.
  int64_t kernel_count = 0;
};

// `module` must be scheduled consistently with `assignment` (the assignment's
// schedule is the one followed).
absl::StatusOr<EmittedModule> EmitModule(const HloModule& module, const BufferAssignment& assignment,
                                         const CodegenOptions& options);

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_CODEGEN_MODULE_EMITTER_H_
