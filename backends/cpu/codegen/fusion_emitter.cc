#include "codegen/fusion_emitter.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "codegen/elemental_ir_emitter.h"
#include "codegen/kernel_emitter.h"
#include "hmo/base/status_macros.h"

namespace hmo::cpu {
namespace {

absl::Status FusionError(const HloInstruction& fusion, std::string_view why) {
  return absl::UnimplementedError("CPU codegen: fusion " + fusion.name() + ": " + std::string(why));
}

// The generators of a fused computation's instructions, composed.
class FusedGenerators {
 public:
  FusedGenerators(llvm::IRBuilderBase& b, llvm::Module& module, std::vector<IrArray> parameters)
      : b_(b), emitter_(b, module), parameters_(std::move(parameters)) {}

  absl::StatusOr<ElementGenerator> Get(const HloInstruction& instruction) {
    if (auto it = generators_.find(&instruction); it != generators_.end()) return it->second;
    ElementGenerator generator;
    if (instruction.opcode() == HloOpcode::kParameter) {
      const IrArray& array = parameters_.at(instruction.parameter_number());
      const bool scalar = array.shape().rank() == 0;
      llvm::IRBuilderBase& b = b_;
      generator = [&b, array, scalar](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
        return array.EmitReadElement(scalar ? IrArray::Index{} : index, b);
      };
    } else {
      std::vector<ElementGenerator> operands;
      for (const HloInstruction* operand : instruction.operands()) {
        HMO_ASSIGN_OR_RETURN(ElementGenerator g, Get(*operand));
        operands.push_back(std::move(g));
      }
      HMO_ASSIGN_OR_RETURN(ElementGenerator raw, emitter_.MakeGenerator(instruction, std::move(operands)));
      generator = Cached(std::move(raw));
    }
    generators_[&instruction] = generator;
    return generator;
  }

 private:
  // Reuses an element computed at the same index in the current block, so
  // an instruction used several times (a DAG) is computed once per element.
  ElementGenerator Cached(ElementGenerator raw) {
    struct Entry {
      IrArray::Index index;
      llvm::BasicBlock* block;
      llvm::Value* value;
    };
    auto cache = std::make_shared<std::vector<Entry>>();
    llvm::IRBuilderBase& b = b_;
    return [&b, raw = std::move(raw), cache](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
      for (const Entry& e : *cache) {
        if (e.block == b.GetInsertBlock() && e.index == index) return e.value;
      }
      HMO_ASSIGN_OR_RETURN(llvm::Value * value, raw(index));
      cache->push_back(Entry{index, b.GetInsertBlock(), value});
      return value;
    };
  }

  llvm::IRBuilderBase& b_;
  ElementalIrEmitter emitter_;
  std::vector<IrArray> parameters_;
  absl::flat_hash_map<const HloInstruction*, ElementGenerator> generators_;
};

// Every fused instruction works element by element on arrays of the
// output's dimensions (scalars only through broadcasts and constants), and
// every parameter array is laid out like the outputs.
bool CanUseFlatLoop(const HloComputation& fused, const std::vector<IrArray>& parameters,
                    const std::vector<IrArray>& outputs) {
  const IrArray& reference = outputs[0];
  if (reference.shape().rank() <= 1) return false;  // already flat
  for (const IrArray& output : outputs) {
    if (output.shape().dimensions() != reference.shape().dimensions() ||
        output.minor_to_major() != reference.minor_to_major()) {
      return false;
    }
  }
  for (const IrArray& parameter : parameters) {
    if (parameter.shape().rank() == 0) continue;
    if (parameter.shape().dimensions() != reference.shape().dimensions() ||
        parameter.minor_to_major() != reference.minor_to_major()) {
      return false;
    }
  }
  for (const HloInstruction* instruction : fused.instructions()) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kTuple:
        continue;
      case HloOpcode::kConstant:
        if (instruction->shape().rank() == 0) continue;
        return false;
      case HloOpcode::kBroadcast:
        if (instruction->operand(0)->shape().rank() == 0) continue;
        return false;
      default:
        if (!instruction->IsElementwise() || !ElementalIrEmitter::IsElementalOpcode(instruction->opcode()) ||
            instruction->shape().dimensions() != reference.shape().dimensions()) {
          return false;
        }
    }
  }
  return true;
}

llvm::Value* ClampStart(llvm::IRBuilderBase& b, llvm::Value* raw, PrimitiveType type, int64_t limit) {
  llvm::Value* wide = primitive_util::IsUnsignedIntegralType(type) ? b.CreateZExtOrTrunc(raw, b.getInt64Ty())
                                                                   : b.CreateSExtOrTrunc(raw, b.getInt64Ty());
  llvm::Value* lower = b.CreateSelect(b.CreateICmpSLT(wide, b.getInt64(0)), b.getInt64(0), wide);
  return b.CreateSelect(b.CreateICmpSGT(lower, I64(b, limit)), I64(b, limit < 0 ? 0 : limit), lower);
}

}  // namespace

absl::Status EmitFusionKernel(KernelEmitContext& context) {
  const HloInstruction& fusion = context.instruction();
  const HloComputation* fused = fusion.fused_instructions_computation();
  if (fused == nullptr) return FusionError(fusion, "no fused computation");
  const HloInstruction* root = fused->root_instruction();
  llvm::IRBuilder<>& b = context.builder();

  std::vector<IrArray> parameters;
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    if (!fusion.operand(i)->shape().IsArray()) return FusionError(fusion, "tuple-shaped operands are not supported");
    HMO_ASSIGN_OR_RETURN(IrArray array, context.OperandArray(i));
    parameters.push_back(std::move(array));
  }
  std::vector<IrArray> outputs;
  std::vector<const HloInstruction*> expressions;
  if (root->opcode() == HloOpcode::kTuple) {
    for (int64_t i = 0; i < root->operand_count(); ++i) {
      HMO_ASSIGN_OR_RETURN(IrArray array, context.OutputArray({i}));
      if (array.shape().dimensions() != ShapeUtil::GetSubshape(fusion.shape(), {0}).dimensions()) {
        return FusionError(fusion, "multi-output fusion with outputs of different dimensions");
      }
      outputs.push_back(std::move(array));
      expressions.push_back(root->operand(i));
    }
  } else {
    HMO_ASSIGN_OR_RETURN(IrArray array, context.OutputArray());
    outputs.push_back(std::move(array));
    expressions.push_back(root);
  }
  if (outputs.empty()) return absl::OkStatus();

  // In place: root = dynamic-update-slice(parameter k, ...) and the fusion's
  // output is parameter k's buffer.
  if (root->opcode() == HloOpcode::kDynamicUpdateSlice && root->operand(0)->opcode() == HloOpcode::kParameter &&
      root->operand_count() == 2 + root->shape().rank()) {
    const HloInstruction* updated = fusion.operand(root->operand(0)->parameter_number());
    const auto out_slices = context.assignment().GetAllSlices(&fusion, {});
    if (!out_slices.empty() && out_slices == context.assignment().GetAllSlices(updated, {})) {
      FusedGenerators generators(b, context.module(), parameters);
      const Shape& update_shape = root->operand(1)->shape();
      std::vector<llvm::Value*> starts;
      for (int64_t d = 0; d < update_shape.rank(); ++d) {
        HMO_ASSIGN_OR_RETURN(ElementGenerator start, generators.Get(*root->operand(2 + d)));
        HMO_ASSIGN_OR_RETURN(llvm::Value * raw, start(IrArray::Index{}));
        starts.push_back(ClampStart(b, raw, root->operand(2 + d)->shape().element_type(),
                                    root->shape().dimensions(static_cast<int>(d)) -
                                        update_shape.dimensions(static_cast<int>(d))));
      }
      HMO_ASSIGN_OR_RETURN(ElementGenerator update, generators.Get(*root->operand(1)));
      // Loop in the output's layout order for contiguous writes.
      Shape loop_shape(update_shape.element_type(), update_shape.dimensions(),
                       Layout(outputs[0].minor_to_major()));
      const IrArray& output = outputs[0];
      return context.EmitLoopNest("dus", loop_shape, [&](const IrArray::Index& index) -> absl::Status {
        HMO_ASSIGN_OR_RETURN(llvm::Value * value, update(index));
        IrArray::Index target(index.size());
        for (size_t d = 0; d < index.size(); ++d) target[d] = b.CreateAdd(starts[d], index[d]);
        output.EmitWriteElement(target, value, b);
        return absl::OkStatus();
      });
    }
  }

  const bool flat = CanUseFlatLoop(*fused, parameters, outputs);
  if (flat) {
    for (IrArray& parameter : parameters) {
      if (parameter.shape().rank() != 0) {
        parameter = parameter.WithShape(Shape(parameter.element_type(), {parameter.element_count()}));
      }
    }
    for (IrArray& output : outputs) {
      output = output.WithShape(Shape(output.element_type(), {output.element_count()}));
    }
  }
  FusedGenerators generators(b, context.module(), parameters);
  std::vector<ElementGenerator> output_generators;
  for (const HloInstruction* expression : expressions) {
    HMO_ASSIGN_OR_RETURN(ElementGenerator g, generators.Get(*expression));
    output_generators.push_back(std::move(g));
  }
  if (outputs.size() == 1) return EmitElementLoop(context, outputs[0], output_generators[0], flat);
  // Multi-output: every element of every output is computed before any is
  // written, so an output sharing an operand's buffer cannot clobber it.
  return context.EmitLoopNest("loop", outputs[0].shape(), [&](const IrArray::Index& index) -> absl::Status {
    std::vector<llvm::Value*> values;
    for (const ElementGenerator& g : output_generators) {
      HMO_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
      values.push_back(v);
    }
    for (size_t i = 0; i < outputs.size(); ++i) outputs[i].EmitWriteElement(index, values[i], b);
    return absl::OkStatus();
  });
}

}  // namespace hmo::cpu
