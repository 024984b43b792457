#include "cpu/compiler/cpu_compiler.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>
#include <utility>

#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/fusion_emitter.h"
#include "cpu/codegen/module_emitter.h"
#include "cpu/compiler/cpu_collectives.h"
#include "cpu/simplification/widened_dot_operands.h"
#include "fmt/format.h"
#include "hmo/analysis/buffer_plan_checker.h"
#include "hmo/base/status_macros.h"
#include "hmo/codegen/fusion/expanded_fusion_regrouping.h"
#include "hmo/codegen/emitted_memory_model.h"
#include "hmo/codegen/jit/cpu_jit.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "hmo/codegen/runtime/runtime_functions.h"

namespace hmo::cpu {
namespace {

// For each constant allocation, the address of its constant's global in the
// JIT's read-only data (offset as the assignment placed the value); null for
// other allocations and for constants the generated code does not use.
absl::StatusOr<std::vector<char*>> ConstantAllocationAddresses(const BufferAssignment& assignment,
                                                               codegen::CpuJit& jit) {
  std::vector<char*> addresses(assignment.Allocations().size(), nullptr);
  for (const BufferAllocation& allocation : assignment.Allocations()) {
    if (!allocation.is_constant()) continue;
    for (const auto& [value, place] : allocation.SortedAssignedBuffers()) {
      const HloInstruction* constant = value->defining_instruction();
      if (constant->opcode() != HloOpcode::kConstant) continue;
      absl::StatusOr<void*> global = jit.Lookup(codegen::ConstantGlobalName(*constant));
      // Constants of computations generated code inlines (reducers, map
      // functions) have no global and their allocation is never used.
      if (absl::IsNotFound(global.status())) break;
      if (!global.ok()) return global.status();
      addresses[allocation.index()] = static_cast<char*>(*global) - place.offset;
      break;
    }
  }
  return addresses;
}

absl::Status DumpIr(const llvm::Module& module, const std::string& path) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  stream.flush();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) return absl::UnavailableError("cannot write LLVM IR to " + path);
  return absl::OkStatus();
}

}  // namespace

TargetMemoryModel CpuMemoryModel() {
  // The expanded fusions of XLA's optimized modules are fused again into
  // loop, reduction and output fusions around their other instructions;
  // their f32 dots of widened 16-bit operands read the 16-bit values.
  TargetMemoryModel model = codegen::EmittedMemoryModel(
      "cpu", kCpuBufferAlignment, codegen::EmittedFusions::kLoopReductionAndOutput,
      [](HloModule& module, const std::vector<HloInstruction*>& expanded) -> absl::Status {
        HMO_RETURN_IF_ERROR(codegen::RegroupExpandedInstructions(
                                module, expanded, codegen::EmittedFusions::kLoopReductionAndOutput)
                                .status());
        return NarrowWidenedDotOperands(module).status();
      });
  // Constants are read from the code's read-only data and thread-local
  // values (reducers, comparators) live in registers: neither takes arena
  // bytes.
  model.arenas_hold_constants = false;
  model.arenas_hold_thread_locals = false;
  return model;
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(const HloModule& module,
                                                             const CpuCompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  HMO_ASSIGN_OR_RETURN(TargetMemoryPlan plan, PlanTargetMemory(module, CpuMemoryModel()));
  const HloModule& scheduled = *plan.module;
  const BufferAssignment& assignment = *plan.assignment;
  // A plan that overwrites a value before its last read would run and give
  // wrong results: refuse it.
  HMO_RETURN_IF_ERROR(CheckBufferPlan(assignment));

  const DeviceGrid grid{.replica_count = options.num_replicas,
                        .partition_count = module.num_partitions()};
  if (grid.replica_count < 1 || grid.partition_count < 1 || grid.device_count() > 4096) {
    return absl::InvalidArgumentError(
        fmt::format("CPU compiler: {} replicas x {} partitions is not a device count "
                    "in [1, 4096]",
                    grid.replica_count, grid.partition_count));
  }
  CodegenOptions codegen_options;
  codegen_options.concurrent_kernels = options.concurrent_kernels;
  HMO_ASSIGN_OR_RETURN(EmittedModule emitted, EmitModule(scheduled, assignment, codegen_options));
  std::vector<collectives::CollectivePlan> collective_plans;
  for (const HloInstruction* collective : emitted.collectives) {
    absl::StatusOr<collectives::CollectivePlan> planned =
        collectives::PlanCollective(*collective, grid);
    if (!planned.ok()) {
      return absl::Status(planned.status().code(),
                          fmt::format("CPU compiler: {}", std::string(planned.status().message())));
    }
    collective_plans.push_back(*std::move(planned));
  }
  if (!options.dump_ir_to.empty()) {
    HMO_RETURN_IF_ERROR(DumpIr(*emitted.module, options.dump_ir_to));
  }
  const std::string entry_name = emitted.entry_function_name;
  codegen::JitOptions jit_options;
  jit_options.opt_level = options.opt_level;
  jit_options.symbols = codegen::RuntimeSymbols();
  jit_options.symbols.push_back(CpuCollectiveSymbol());
  jit_options.compile_threads =
      options.threads > 0
          ? options.threads
          : std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()));
  HMO_ASSIGN_OR_RETURN(
      std::unique_ptr<codegen::CpuJit> jit,
      codegen::CpuJit::Compile(std::move(emitted.context), std::move(emitted.module), jit_options));
  HMO_ASSIGN_OR_RETURN(void* entry, jit->Lookup(entry_name));
  HMO_ASSIGN_OR_RETURN(std::vector<char*> constant_addresses,
                       ConstantAllocationAddresses(assignment, *jit));

  ExecutableStats stats;
  stats.code_bytes = jit->section_sizes().code_bytes;
  stats.rodata_bytes = jit->section_sizes().rodata_bytes;
  stats.rwdata_bytes = jit->section_sizes().rwdata_bytes;
  stats.kernel_count = emitted.kernel_count;
  stats.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto executable = std::make_unique<CpuExecutable>(
      std::move(plan), std::move(jit), reinterpret_cast<CpuEntryFunction>(entry), std::move(stats),
      std::move(constant_addresses), std::move(emitted.while_loops), grid,
      std::move(collective_plans));
  executable->set_threads(options.threads);
  return executable;
}

}  // namespace hmo::cpu
