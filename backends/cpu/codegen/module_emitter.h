#ifndef HMO_BACKENDS_CPU_CODEGEN_MODULE_EMITTER_H_
#define HMO_BACKENDS_CPU_CODEGEN_MODULE_EMITTER_H_

// EmitModule: the LLVM IR of a scheduled HLO module for the CPU backend.
//
// ABI: the module defines `void <entry_function_name>(char** buffer_table)`
// (external linkage). buffer_table[i] is the base address of
// BufferAllocation i of `assignment` (every allocation, every memory space);
// the slot after the last allocation's, buffer_table[N] with N the number of
// allocations, holds the address of the run's LoopTripBudget, and
// buffer_table[N + 1] the device context collectives pass to the runtime
// (cpu/compiler/cpu_collectives.h);
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
// A run of kernels with nothing else emitted between them, some of them
// independent (no byte one writes is read or written by the other:
// kernel_dependencies.h), is one call of __hmo_cpu_run_kernel_graph over
// their dependency graph (CodegenOptions::concurrent_kernels).
// Values that usually share a slice by alias analysis (tuple and
// get-tuple-element elements, bitcast, opt-barrier, the while state, call
// and branch parameters/results) are copied when their slices differ.
// Constants are private read-only globals, copied into their slice when
// they have one.
//
// While loops count their trips against the LoopTripBudget: one execution of
// loop k that would run its body more than max_trips times stores k in
// exceeded_loop and leaves the loop; every loop leaves at its next condition
// once exceeded_loop is set, so the run ends after finitely many kernels and
// the caller reports the loop (EmittedModule::while_loops[k]) instead of
// reading results.
//
// Collectives (hmo/collectives/collective_plan.h: IsPlannedCollective) call
// `__hmo_cpu_collective(device_context, k, send, receive)` with k the
// collective's index in EmittedModule::collectives and two arrays of
// addresses: its operands', and its result leaves' (CollectiveReceiveIndices);
// all-gather-start and collective-permute-start first copy their operands to
// their {0}, and the -done forms copy the start's result.
//
// Errors: UnimplementedError naming the instruction and opcode for what the
// backend does not support (infeed/outfeed, rng, custom-calls
// other than MoveToHost/MoveToDevice/annotate_device_placement, complex and
// sub-byte types, non-loop fusions, ...).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_module.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace hmo::cpu {

// The trip budget generated while loops count against (the ABI above).
struct LoopTripBudget {
  // Body runs one execution of a loop may make; negative: no budget.
  int64_t max_trips = -1;
  // -1, or the index in EmittedModule::while_loops of the loop that ran out.
  int64_t exceeded_loop = -1;
};

struct CodegenOptions {
  std::string entry_function_name = "hmo_entry";
  // Whether a run of kernels with independent ones among them runs as its
  // dependency graph (__hmo_cpu_run_kernel_graph), independent kernels at
  // the same time; else every kernel is called in schedule order.
  bool concurrent_kernels = true;
};

struct EmittedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::string entry_function_name;
  // Number of kernel functions emitted.
  int64_t kernel_count = 0;
  // The while instructions' names, by the index LoopTripBudget::exceeded_loop
  // reports.
  std::vector<std::string> while_loops;
  // The collectives, by the index generated code passes the runtime.
  std::vector<const HloInstruction*> collectives;
};

// `module` must be scheduled consistently with `assignment` (the assignment's
// schedule is the one followed).
absl::StatusOr<EmittedModule> EmitModule(const HloModule& module, const BufferAssignment& assignment,
                                         const CodegenOptions& options);

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_CODEGEN_MODULE_EMITTER_H_
