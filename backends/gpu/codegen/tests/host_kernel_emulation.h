#ifndef HMO_BACKENDS_GPU_CODEGEN_TESTS_HOST_KERNEL_EMULATION_H_
#define HMO_BACKENDS_GPU_CODEGEN_TESTS_HOST_KERNEL_EMULATION_H_

// Test helper: runs the GPU kernels of a module on the host, to check what
// they compute without a GPU, with a chosen (small) launch. The kernels are
// HostKernelLibrary's (the kernel IR of EmitKernelIr JIT-compiled for the
// CPU); each is called once per (block, thread) of the launch, one after
// another, after its prologue copies. Running threads one after another is
// one valid schedule of a kernel without barriers, and launches smaller
// than the iteration count exercise the grid-stride loops. (Whole modules,
// control flow included, run on the emulated device through CompileForGpu.)
//
// Only for entry computations of plain instructions (no control flow), with
// row-major parameters and outputs.

#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu/codegen/gpu_kernel_emitter.h"
#include "gpu/compiler/gpu_module_preparation.h"
#include "gpu/compiler/host_kernel_library.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/literal.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::gpu::testing {

struct HostLaunch {
  int blocks = 2;
  int threads_per_block = 3;
};

// Runs the kernels of `hlo_text`'s entry (in schedule order) on `arguments`
// and returns the root's values at `outputs`.
inline absl::StatusOr<std::vector<Literal>> RunKernelsOnHost(std::string_view hlo_text,
                                                             const std::vector<Literal>& arguments,
                                                             const std::vector<ShapeIndex>& outputs,
                                                             HostLaunch launch = {}) {
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> parsed, ParseHloModule(hlo_text));
  HMO_ASSIGN_OR_RETURN(PreparedGpuModule prepared, PrepareGpuModule(*parsed));
  const BufferAssignment& assignment = *prepared.assignment;
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HostKernelLibrary> library,
                       HostKernelLibrary::Compile(*prepared.module, assignment, /*opt_level=*/1));

  // Allocations, 64-byte aligned; the buffer table.
  std::vector<std::vector<uint64_t>> memory;
  std::vector<char*> table;
  for (const BufferAllocation& allocation : assignment.Allocations()) {
    memory.emplace_back((allocation.size() + 7) / 8 + 8, 0);
    table.push_back(reinterpret_cast<char*>(memory.back().data()));
  }
  auto slice_of = [&](const HloInstruction* instruction,
                      const ShapeIndex& index) -> absl::StatusOr<BufferAssignment::Slice> {
    std::set<BufferAssignment::Slice> slices = assignment.GetAllSlices(instruction, index);
    if (slices.size() != 1) return absl::InternalError("no unique slice for " + instruction->name());
    return *slices.begin();
  };
  const HloComputation* entry = prepared.module->entry_computation();
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice, slice_of(entry->parameter_instruction(p), {}));
    const std::vector<uint8_t>& bytes = arguments.at(p).raw_data();
    std::memcpy(table[slice.index] + slice.offset, bytes.data(), bytes.size());
  }

  for (const KernelIr& kernel : library->kernels()) {
    for (const OutputInitialization& copy : kernel.prologue_copies) {
      HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice from,
                           slice_of(kernel.instruction->operand(copy.operand_number), {}));
      HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice to, slice_of(kernel.instruction, copy.output_index));
      if (!(from == to)) std::memmove(table[to.index] + to.offset, table[from.index] + from.offset, to.size);
    }
    HMO_ASSIGN_OR_RETURN(int64_t index, library->Find(kernel.name));
    library->Run(index, LaunchDimensions{launch.threads_per_block, launch.blocks}, table.data());
  }

  std::vector<Literal> results;
  const HloInstruction* root = entry->root_instruction();
  for (const ShapeIndex& index : outputs) {
    HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice, slice_of(root, index));
    Literal literal(ShapeUtil::GetSubshape(root->shape(), index));
    std::memcpy(literal.mutable_raw_data()->data(), table[slice.index] + slice.offset,
                literal.mutable_raw_data()->size());
    results.push_back(std::move(literal));
  }
  return results;
}

}  // namespace hmo::gpu::testing

#endif  // HMO_BACKENDS_GPU_CODEGEN_TESTS_HOST_KERNEL_EMULATION_H_
