#ifndef HMO_BACKENDS_GPU_CODEGEN_TESTS_HOST_KERNEL_EMULATION_H_
#define HMO_BACKENDS_GPU_CODEGEN_TESTS_HOST_KERNEL_EMULATION_H_

// Test helper: runs the GPU kernels of a module on the host, to check what
// they compute without a GPU. The kernel IR of EmitKernelIr is JIT-compiled
// for the CPU with the four special-register reads (%tid.x, %ctaid.x,
// %ntid.x, %nctaid.x) replaced by loads of globals; each kernel is then
// called once per (block, thread) of a small launch, one after another,
// after its prologue copies. Running threads one after another is one valid
// schedule of a kernel without barriers, and launches smaller than the
// iteration count exercise the grid-stride loops.
//
// Only for entry computations of plain instructions (no control flow), with
// row-major parameters and outputs.

#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/gpu_kernel_emitter.h"
#include "compiler/gpu_module_preparation.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/literal.h"
#include "hmo/text/hlo_parser.h"
#include "jit/cpu_jit.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace hmo::gpu::testing {

struct HostLaunch {
  int blocks = 2;
  int threads_per_block = 3;
};

// Global i32 variables standing for the special registers.
inline absl::Status ReplaceSpecialRegisterReads(llvm::Module& module) {
  std::vector<llvm::Function*> reads;
  for (llvm::Function& f : module) {
    if (f.getName().startswith("llvm.nvvm.read.ptx.sreg.")) reads.push_back(&f);
  }
  for (llvm::Function* f : reads) {
    std::string name = "hmo_emu_" + f->getName().drop_front(std::strlen("llvm.nvvm.read.ptx.sreg.")).str();
    for (char& c : name) {
      if (c == '.') c = '_';
    }
    auto* i32 = llvm::Type::getInt32Ty(module.getContext());
    auto* global = new llvm::GlobalVariable(module, i32, /*isConstant=*/false, llvm::GlobalValue::ExternalLinkage,
                                            llvm::ConstantInt::get(i32, 0), name);
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* user : f->users()) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(user);
      if (call == nullptr) return absl::InternalError("unexpected use of " + f->getName().str());
      calls.push_back(call);
    }
    for (llvm::CallInst* call : calls) {
      auto* load = new llvm::LoadInst(i32, global, name, call);
      call->replaceAllUsesWith(load);
      call->eraseFromParent();
    }
    f->eraseFromParent();
  }
  if (llvm::NamedMDNode* annotations = module.getNamedMetadata("nvvm.annotations")) {
    module.eraseNamedMetadata(annotations);
  }
  return absl::OkStatus();
}

// Runs the kernels of `hlo_text` on `arguments` (row-major, one per entry
// parameter) and returns the entry root's arrays at `outputs` (row-major).
inline absl::StatusOr<std::vector<Literal>> RunKernelsOnHost(std::string_view hlo_text,
                                                             const std::vector<Literal>& arguments,
                                                             const std::vector<ShapeIndex>& outputs,
                                                             HostLaunch launch = {}) {
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> parsed, ParseHloModule(hlo_text));
  HMO_ASSIGN_OR_RETURN(PreparedGpuModule prepared, PrepareGpuModule(*parsed));
  const BufferAssignment& assignment = *prepared.assignment;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("emulated", *context);
  HMO_ASSIGN_OR_RETURN(std::vector<KernelIr> kernels, EmitKernelIr(*prepared.module, assignment, *module));
  HMO_RETURN_IF_ERROR(ReplaceSpecialRegisterReads(*module));
  cpu::JitOptions options;
  options.opt_level = 1;
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<cpu::CpuJit> jit,
                       cpu::CpuJit::Compile(std::move(context), std::move(module), options));

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

  for (const KernelIr& kernel : kernels) {
    for (const OutputInitialization& copy : kernel.prologue_copies) {
      HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice from,
                           slice_of(kernel.instruction->operand(copy.operand_number), {}));
      HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice to, slice_of(kernel.instruction, copy.output_index));
      if (!(from == to)) std::memmove(table[to.index] + to.offset, table[from.index] + from.offset, to.size);
    }
    HMO_ASSIGN_OR_RETURN(void* address, jit->Lookup(kernel.name));
    auto* function = reinterpret_cast<void (*)(char**)>(address);
    HMO_ASSIGN_OR_RETURN(void* tid, jit->Lookup("hmo_emu_tid_x"));
    HMO_ASSIGN_OR_RETURN(void* ctaid, jit->Lookup("hmo_emu_ctaid_x"));
    HMO_ASSIGN_OR_RETURN(void* ntid, jit->Lookup("hmo_emu_ntid_x"));
    absl::StatusOr<void*> nctaid = jit->Lookup("hmo_emu_nctaid_x");  // absent when never read
    *static_cast<int32_t*>(ntid) = launch.threads_per_block;
    if (nctaid.ok()) *static_cast<int32_t*>(*nctaid) = launch.blocks;
    for (int block = 0; block < launch.blocks; ++block) {
      for (int thread = 0; thread < launch.threads_per_block; ++thread) {
        *static_cast<int32_t*>(ctaid) = block;
        *static_cast<int32_t*>(tid) = thread;
        function(table.data());
      }
    }
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
