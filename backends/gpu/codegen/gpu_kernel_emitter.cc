#include "gpu/codegen/gpu_kernel_emitter.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "gpu/codegen/gpu_parallel_loops.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/kernel_emit_context.h"
#include "hmo/codegen/kernel_emitter.h"
#include "hmo/base/status_macros.h"
#include "hmo/collectives/collective_plan.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"

namespace hmo::gpu {
namespace {

using codegen::ElementalIrEmitter;
using codegen::KernelEmitContext;

absl::Status NotSupported(const HloInstruction& instruction, std::string_view why = "") {
  std::string message = "GPU codegen: " + std::string(HloOpcodeString(instruction.opcode())) +
                        " instruction " + instruction.name() + " is not supported";
  if (!why.empty()) message += " (" + std::string(why) + ")";
  return absl::UnimplementedError(message);
}

// PTX identifiers: [A-Za-z_][A-Za-z0-9_]* (LLVM would mangle '.' and '-').
std::string PtxName(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out.push_back(ok ? c : '_');
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), 'k');
  return out;
}

// Every kernel is the shared emitters' (hmo/codegen/kernel_emitter.h:
// fusions, op emitters, elemental instructions) with the GPU's target: its
// loops over outputs are grid-stride loops, no runtime calls, and outputs
// that scatter/sort update in place initialized by the launcher (prologue
// copies). Returns the kernel's parallel iterations.
absl::StatusOr<int64_t> EmitSharedKernel(KernelEmitContext& context,
                                         const GridStrideLoopEmitter& loops) {
  absl::Status status = codegen::EmitKernelBody(context);
  if (status.code() == absl::StatusCode::kUnimplemented) {
    return NotSupported(context.instruction(), std::string(status.message()));
  }
  HMO_RETURN_IF_ERROR(status);
  return loops.iteration_count();
}

class KernelIrEmitter {
 public:
  KernelIrEmitter(const BufferAssignment& assignment, llvm::Module& module)
      : assignment_(assignment), module_(module) {}

  absl::Status EmitComputation(const HloComputation& computation) {
    if (!visited_.insert(&computation).second) return absl::OkStatus();
    const HloSchedule& schedule = assignment_.schedule();
    const std::vector<HloInstruction*> sequence = schedule.is_computation_scheduled(&computation)
                                                      ? schedule.sequence(&computation).instructions()
                                                      : computation.MakeInstructionPostOrder();
    for (const HloInstruction* instruction : sequence) {
      switch (instruction->opcode()) {
        case HloOpcode::kWhile:
        case HloOpcode::kConditional:
        case HloOpcode::kCall:
          for (const HloComputation* callee : instruction->called_computations()) {
            HMO_RETURN_IF_ERROR(EmitComputation(*callee));
          }
          continue;
        default:
          break;
      }
      if (!InstructionNeedsGpuKernel(*instruction)) continue;
      HMO_RETURN_IF_ERROR(EmitKernel(*instruction));
    }
    return absl::OkStatus();
  }

  std::vector<KernelIr> TakeKernels() { return std::move(kernels_); }

 private:
  absl::Status EmitKernel(const HloInstruction& instruction) {
    if (instruction.opcode() != HloOpcode::kFusion && !codegen::HasOpEmitter(instruction) &&
        !ElementalIrEmitter::IsElementalOpcode(instruction.opcode())) {
      return NotSupported(instruction);
    }
    llvm::LLVMContext& context = module_.getContext();
    llvm::Type* table_type = llvm::Type::getInt8PtrTy(context)->getPointerTo();
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {table_type}, false);
    std::string name = PtxName(instruction.name());
    for (int k = 1; names_.contains(name) || module_.getNamedValue(name) != nullptr; ++k) {
      name = PtxName(instruction.name()) + "_" + std::to_string(k);
    }
    names_.insert(name);
    llvm::Function* kernel = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module_);
    kernel->addFnAttr(llvm::Attribute::NoUnwind);
    kernel->getArg(0)->setName("buffer_table");
    kernel->addParamAttr(0, llvm::Attribute::NoCapture);
    kernel->addParamAttr(0, llvm::Attribute::ReadOnly);

    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", kernel));
    GridStrideLoopEmitter loops;
    codegen::KernelTarget target;
    target.parallel_loops = &loops;
    target.runtime_calls_available = false;
    target.launcher_initializes_outputs = true;
    KernelEmitContext emit_context(b, module_, *kernel, kernel->getArg(0), assignment_, instruction, target);
    absl::StatusOr<int64_t> count = EmitSharedKernel(emit_context, loops);
    if (!count.ok()) {
      kernel->eraseFromParent();
      return count.status();
    }
    b.CreateRetVoid();

    // !nvvm.annotations = !{!{ptr @kernel, !"kernel", i32 1}}
    llvm::Metadata* annotation[] = {llvm::ValueAsMetadata::get(kernel), llvm::MDString::get(context, "kernel"),
                                    llvm::ValueAsMetadata::get(llvm::ConstantInt::get(b.getInt32Ty(), 1))};
    module_.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(context, annotation));
    KernelIr entry{name, &instruction, *count, {}};
    for (const codegen::OutputInitialization& copy : emit_context.output_initializations()) {
      entry.prologue_copies.push_back(OutputInitialization{copy.operand_number, copy.output_index});
    }
    kernels_.push_back(std::move(entry));
    return absl::OkStatus();
  }

  const BufferAssignment& assignment_;
  llvm::Module& module_;
  absl::flat_hash_set<const HloComputation*> visited_;
  absl::flat_hash_set<std::string> names_;
  std::vector<KernelIr> kernels_;
};

}  // namespace

bool InstructionNeedsGpuKernel(const HloInstruction& instruction) {
  // Collectives, their -done forms and the id ops are thunks
  // (compiler/gpu_thunk_plan.h).
  if (collectives::IsPlannedCollective(instruction.opcode())) return false;
  switch (instruction.opcode()) {
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      return false;
    default:
      break;
  }
  if (!codegen::NeedsKernel(instruction)) return false;
  if (instruction.shape().IsArray() && ShapeUtil::ElementsIn(instruction.shape()) == 0) return false;
  return true;
}

absl::StatusOr<std::vector<KernelIr>> EmitKernelIr(const HloModule& hlo, const BufferAssignment& assignment,
                                                   llvm::Module& module) {
  const HloComputation* entry = hlo.entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("GPU codegen: the module has no entry computation");
  KernelIrEmitter emitter(assignment, module);
  HMO_RETURN_IF_ERROR(emitter.EmitComputation(*entry));
  return emitter.TakeKernels();
}

}  // namespace hmo::gpu
