#include "gpu/codegen/gpu_kernel_emitter.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/fused_generators.h"
#include "hmo/codegen/fusion_emitter.h"
#include "gpu/codegen/gpu_parallel_loops.h"
#include "hmo/codegen/ir_array.h"
#include "hmo/codegen/kernel_emit_context.h"
#include "hmo/codegen/kernel_emitter.h"
#include "hmo/codegen/dynamic_slicing.h"
#include "hmo/base/status_macros.h"
#include "hmo/collectives/collective_plan.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"

namespace hmo::gpu {
namespace {

// Whether `value` is computed from `buffer`.
bool DependsOn(const HloInstruction* value, const HloInstruction* buffer) {
  if (value == buffer) return true;
  for (const HloInstruction* operand : value->operands()) {
    if (DependsOn(operand, buffer)) return true;
  }
  return false;
}

// Whether the update of an in-place `dus` (its operand 0 a fused parameter)
// reads that parameter only at the position each element is written to:
// through dynamic-slices of it with the DUS's start indices and the
// update's shape, reaching the update through elementwise instructions
// alone (XLA:GPU's condition). Each thread then reads the element it
// writes, so the one grid-stride loop has no race; any other read does.
bool ReadsTheUpdatedBufferOnlyWhereItWrites(const HloInstruction& dus) {
  const HloInstruction* buffer = dus.operand(0);
  const HloInstruction* update = dus.operand(1);
  absl::flat_hash_set<const HloInstruction*> slices;
  for (const HloInstruction* user : buffer->users()) {
    if (user == &dus) continue;
    if (user->opcode() != HloOpcode::kDynamicSlice || user->operand(0) != buffer ||
        user->operand_count() != dus.operand_count() - 1 ||
        user->shape().dimensions() != update->shape().dimensions()) {
      return false;
    }
    for (int64_t d = 1; d < user->operand_count(); ++d) {
      if (user->operand(d) != dus.operand(d + 1)) return false;
    }
    slices.insert(user);
  }
  const std::function<bool(const HloInstruction*)> positionwise = [&](const HloInstruction* value) {
    if (slices.contains(value) || !DependsOn(value, buffer)) return true;
    if (!value->IsElementwise() || value->shape().dimensions() != update->shape().dimensions())
      return false;
    for (const HloInstruction* operand : value->operands()) {
      if (!positionwise(operand)) return false;
    }
    return true;
  };
  return positionwise(update);
}

using codegen::ElementalIrEmitter;
using codegen::ElementGenerator;
using codegen::FusedGenerators;
using codegen::IrArray;
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

// Writes update(index) at starts + index of `output` for every index of the
// update's shape (iterated in the output's layout order).
absl::Status EmitDynamicUpdateLoop(llvm::IRBuilder<>& b, const IrArray& output, const Shape& update_shape,
                                   const std::vector<llvm::Value*>& starts, const ElementGenerator& update) {
  const Shape loop_shape(update_shape.element_type(), update_shape.dimensions(), Layout(output.minor_to_major()));
  const IrArray space(nullptr, loop_shape);
  return EmitGridStrideLoop(b, ShapeUtil::ElementsIn(update_shape), [&](llvm::Value* linear) -> absl::Status {
    const IrArray::Index index = space.EmitMultiIndex(linear, b);
    HMO_ASSIGN_OR_RETURN(llvm::Value * value, update(index));
    IrArray::Index target(index.size());
    for (size_t d = 0; d < index.size(); ++d) target[d] = b.CreateAdd(starts[d], index[d]);
    output.EmitWriteElement(target, value, b);
    return absl::OkStatus();
  });
}

// Every output element: value(s) at the logical index of physical position
// i of outputs[0]; all computed before any is written (an output may share
// an operand's buffer).
absl::Status EmitOutputLoop(llvm::IRBuilder<>& b, const std::vector<IrArray>& outputs,
                            const std::vector<ElementGenerator>& generators) {
  const IrArray& space = outputs[0];
  return EmitGridStrideLoop(b, space.element_count(), [&](llvm::Value* linear) -> absl::Status {
    const IrArray::Index index = space.EmitMultiIndex(linear, b);
    std::vector<llvm::Value*> values;
    for (const ElementGenerator& g : generators) {
      HMO_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
      values.push_back(v);
    }
    for (size_t k = 0; k < outputs.size(); ++k) outputs[k].EmitWriteElement(index, values[k], b);
    return absl::OkStatus();
  });
}

// A loop fusion's kernel: every fused instruction has an elemental form
// (whatever XLA's label). Reduction fusions are the shared emitter's
// (EmitWithOpEmitter).
absl::StatusOr<int64_t> EmitLoopFusion(KernelEmitContext& context) {
  const HloInstruction& fusion = context.instruction();
  if (!codegen::IsLoopFusionEmittable(fusion)) {
    return NotSupported(fusion, "a " + std::string(FusionKindString(fusion.fusion_kind())) +
                                    " fusion whose instructions are not all elemental");
  }
  const HloComputation* fused = fusion.fused_instructions_computation();
  if (fused == nullptr) return NotSupported(fusion, "no fused computation");
  const HloInstruction* root = fused->root_instruction();
  llvm::IRBuilder<>& b = context.builder();

  std::vector<IrArray> parameters;
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    if (!fusion.operand(i)->shape().IsArray()) return NotSupported(fusion, "tuple-shaped operand");
    HMO_ASSIGN_OR_RETURN(IrArray array, context.OperandArray(i));
    parameters.push_back(std::move(array));
  }
  FusedGenerators generators(b, context.module(), parameters);

  // The outputs: the root, or each operand of a tuple root (index {i}).
  std::vector<std::pair<const HloInstruction*, ShapeIndex>> results;
  if (root->opcode() == HloOpcode::kTuple) {
    for (int64_t i = 0; i < root->operand_count(); ++i) results.push_back({root->operand(i), ShapeIndex{i}});
  } else {
    results.push_back({root, ShapeIndex{}});
  }

  // One grid-stride loop per group: an in-place dynamic-update-slice
  // iterates over its update; the other outputs iterate over their own
  // elements, those of equal dimensions together (computed before any is
  // written). Loops of one kernel run concurrently across threads, so a
  // group may not write a buffer another group reads: an in-place update's
  // buffer must have no other reader (XLA:GPU's condition too), and with
  // several groups no other output may share a fusion operand's buffer.
  // An in-place update writes its buffer through the fused parameter's
  // array (the same bytes as the output, also when a bitcast of the update
  // is the output).
  struct DynamicUpdate {
    const HloInstruction* dus;
    int64_t parameter;
  };
  std::vector<DynamicUpdate> updates;
  std::vector<std::vector<std::pair<const HloInstruction*, ShapeIndex>>> groups;
  for (const auto& [expression, index] : results) {
    if (const HloInstruction* dus =
            codegen::FusedInPlaceUpdate(fusion, expression, index, context.assignment())) {
      if (!ReadsTheUpdatedBufferOnlyWhereItWrites(*dus)) {
        return NotSupported(fusion,
                            "in-place dynamic-update-slice whose update reads the updated buffer");
      }
      updates.push_back({dus, dus->operand(0)->parameter_number()});
      continue;
    }
    const Shape& shape = ShapeUtil::GetSubshape(fusion.shape(), index);
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return ShapeUtil::GetSubshape(fusion.shape(), g.front().second).dimensions() == shape.dimensions();
    });
    if (group == groups.end()) {
      groups.push_back({{expression, index}});
    } else {
      group->push_back({expression, index});
    }
  }
  if (updates.size() + groups.size() > 1) {
    for (const auto& group : groups) {
      for (const auto& [expression, index] : group) {
        const auto out_slices = context.assignment().GetAllSlices(&fusion, index);
        for (int64_t i = 0; i < fusion.operand_count(); ++i) {
          if (out_slices == context.assignment().GetAllSlices(fusion.operand(i), {})) {
            return NotSupported(fusion, "multi-output fusion whose output " + ShapeIndexToString(index) +
                                            " reuses an operand's buffer while other loops read");
          }
        }
      }
    }
  }

  int64_t iterations = 0;
  for (const DynamicUpdate& update : updates) {
    const HloInstruction& dus = *update.dus;
    const IrArray& output = parameters[update.parameter];
    const Shape& update_shape = dus.operand(1)->shape();
    std::vector<llvm::Value*> starts;
    for (int64_t d = 0; d < update_shape.rank(); ++d) {
      HMO_ASSIGN_OR_RETURN(ElementGenerator start, generators.Get(*dus.operand(2 + d)));
      HMO_ASSIGN_OR_RETURN(llvm::Value * raw, start(IrArray::Index{}));
      starts.push_back(
          codegen::EmitClampedSliceStart(b, raw, dus.operand(2 + d)->shape().element_type(),
                                         dus.shape().dimensions(static_cast<int>(d)) -
                                             update_shape.dimensions(static_cast<int>(d))));
    }
    HMO_ASSIGN_OR_RETURN(ElementGenerator values, generators.Get(*dus.operand(1)));
    HMO_RETURN_IF_ERROR(EmitDynamicUpdateLoop(b, output, update_shape, starts, values));
    iterations = std::max(iterations, ShapeUtil::ElementsIn(update_shape));
  }
  for (const auto& group : groups) {
    std::vector<IrArray> outputs;
    std::vector<ElementGenerator> output_generators;
    for (const auto& [expression, index] : group) {
      HMO_ASSIGN_OR_RETURN(IrArray array, context.OutputArray(index));
      HMO_ASSIGN_OR_RETURN(ElementGenerator g, generators.Get(*expression));
      outputs.push_back(std::move(array));
      output_generators.push_back(std::move(g));
    }
    HMO_RETURN_IF_ERROR(EmitOutputLoop(b, outputs, output_generators));
    iterations = std::max(iterations, outputs[0].element_count());
  }
  return iterations;
}

absl::StatusOr<int64_t> EmitElemental(KernelEmitContext& context) {
  const HloInstruction& instruction = context.instruction();
  if (!instruction.shape().IsArray()) return NotSupported(instruction, "tuple-shaped result");
  llvm::IRBuilder<>& b = context.builder();
  HMO_ASSIGN_OR_RETURN(IrArray output, context.OutputArray());
  if (instruction.opcode() == HloOpcode::kDynamicUpdateSlice &&
      codegen::UpdatesInPlace(instruction, instruction, {}, *instruction.operand(0),
                              context.assignment())) {
    const Shape& update_shape = instruction.operand(1)->shape();
    std::vector<llvm::Value*> starts;
    for (int64_t d = 0; d < update_shape.rank(); ++d) {
      HMO_ASSIGN_OR_RETURN(IrArray start, context.OperandArray(2 + d));
      starts.push_back(
          codegen::EmitClampedSliceStart(b, start.EmitReadElement({}, b), start.element_type(),
                                         instruction.shape().dimensions(static_cast<int>(d)) -
                                             update_shape.dimensions(static_cast<int>(d))));
    }
    HMO_ASSIGN_OR_RETURN(IrArray update, context.OperandArray(1));
    HMO_RETURN_IF_ERROR(
        EmitDynamicUpdateLoop(b, output, update_shape, starts, FusedGenerators::ArrayReader(b, update)));
    return ShapeUtil::ElementsIn(update_shape);
  }
  std::vector<ElementGenerator> operands;
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    if (!instruction.operand(i)->shape().IsArray()) return NotSupported(instruction, "tuple-shaped operand");
    HMO_ASSIGN_OR_RETURN(IrArray operand, context.OperandArray(i));
    operands.push_back(FusedGenerators::ArrayReader(b, operand));
  }
  ElementalIrEmitter emitter(b, context.module());
  HMO_ASSIGN_OR_RETURN(ElementGenerator generator, emitter.MakeGenerator(instruction, std::move(operands)));
  HMO_RETURN_IF_ERROR(EmitOutputLoop(b, {output}, {generator}));
  return output.element_count();
}

// Opcodes whose kernel is a shared op emitter (hmo/codegen/op_emitters.h),
// and reduction fusions (hmo/codegen/fusion_emitter.h: the reduce's loops
// with the fused producers computed inside them). The shared emitter, with
// a grid-stride parallel loop, no runtime calls, and outputs that
// scatter/sort update in place initialized by the launcher (prologue
// copies).
absl::StatusOr<int64_t> EmitWithOpEmitter(KernelEmitContext& context, const GridStrideLoopEmitter& loops) {
  // codegen::EmitKernelBody dispatches HasOpEmitter opcodes to op_emitters.h.
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
    absl::StatusOr<int64_t> count;
    if (instruction.opcode() == HloOpcode::kFusion) {
      count = codegen::IsReductionFusionEmittable(instruction)
                  ? EmitWithOpEmitter(emit_context, loops)
                  : EmitLoopFusion(emit_context);
    } else if (codegen::HasOpEmitter(instruction)) {
      count = EmitWithOpEmitter(emit_context, loops);
    } else {
      count = EmitElemental(emit_context);
    }
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
