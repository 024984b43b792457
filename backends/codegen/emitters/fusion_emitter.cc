#include "hmo/codegen/fusion_emitter.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "hmo/codegen/alias_scopes.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/fused_generators.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/dynamic_slicing.h"
#include "hmo/codegen/kernel_emitter.h"
#include "hmo/base/status_macros.h"

namespace hmo::codegen {
namespace {

absl::Status FusionError(const HloInstruction& fusion, std::string_view why) {
  return absl::UnimplementedError("CPU codegen: fusion " + fusion.name() + ": " + std::string(why));
}

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
        if (!instruction->IsElementwise() ||
            !ElementalIrEmitter::IsElementalOpcode(instruction->opcode()) ||
            instruction->shape().dimensions() != reference.shape().dimensions()) {
          return false;
        }
    }
  }
  return true;
}

// Writes the update of `dus` into `target` (the updated buffer viewed with
// the dynamic-update-slice's shape), visiting only the update region.
absl::Status EmitInPlaceUpdate(KernelEmitContext& context, FusedGenerators& generators,
                               const HloInstruction& dus, const IrArray& target) {
  llvm::IRBuilder<>& b = context.builder();
  const Shape& update_shape = dus.operand(1)->shape();
  std::vector<llvm::Value*> starts;
  for (int64_t d = 0; d < update_shape.rank(); ++d) {
    HMO_ASSIGN_OR_RETURN(ElementGenerator start, generators.Get(*dus.operand(2 + d)));
    HMO_ASSIGN_OR_RETURN(llvm::Value * raw, start(IrArray::Index{}));
    starts.push_back(EmitClampedSliceStart(b, raw, dus.operand(2 + d)->shape().element_type(),
                                           dus.shape().dimensions(static_cast<int>(d)) -
                                               update_shape.dimensions(static_cast<int>(d))));
  }
  HMO_ASSIGN_OR_RETURN(ElementGenerator update, generators.Get(*dus.operand(1)));
  // Loop in the target's layout order for contiguous writes.
  Shape loop_shape(update_shape.element_type(), update_shape.dimensions(),
                   Layout(target.minor_to_major()));
  return context.EmitLoopNest("dus", loop_shape, [&](const IrArray::Index& index) -> absl::Status {
    HMO_ASSIGN_OR_RETURN(llvm::Value * value, update(index));
    IrArray::Index position(index.size());
    for (size_t d = 0; d < index.size(); ++d) position[d] = b.CreateAdd(starts[d], index[d]);
    target.EmitWriteElement(position, value, b);
    return absl::OkStatus();
  });
}

// Whether `instruction` (not a reduction fusion's root) can be computed
// element by element inside a fusion kernel: an elemental opcode, and for a
// reduce or reduce-window, a small enough input (kMaxInnerReductionBytes).
bool IsFusibleElemental(const HloInstruction& instruction) {
  if (!instruction.shape().IsArray() ||
      !ElementalIrEmitter::IsElementalOpcode(instruction.opcode())) {
    return false;
  }
  if (instruction.opcode() == HloOpcode::kReduce ||
      instruction.opcode() == HloOpcode::kReduceWindow) {
    return ShapeUtil::ByteSizeOf(instruction.operand(0)->shape()) < kMaxInnerReductionBytes;
  }
  return true;
}

}  // namespace

bool IsLoopFusionEmittable(const HloInstruction& fusion) {
  const HloComputation* fused = fusion.fused_instructions_computation();
  if (fused == nullptr) return false;
  for (const HloInstruction* operand : fusion.operands()) {
    if (!operand->shape().IsArray()) return false;
  }
  const HloInstruction* root = fused->root_instruction();
  for (const HloInstruction* instruction : fused->instructions()) {
    if (instruction->opcode() == HloOpcode::kParameter) continue;
    if (instruction == root && instruction->opcode() == HloOpcode::kTuple) continue;
    if (!IsFusibleElemental(*instruction)) return false;
  }
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* output : root->operands()) {
      if (!output->shape().IsArray() ||
          output->shape().dimensions() != root->operand(0)->shape().dimensions()) {
        return false;
      }
    }
  }
  return true;
}

bool IsReductionFusionEmittable(const HloInstruction& fusion) {
  const HloComputation* fused = fusion.fused_instructions_computation();
  if (fused == nullptr) return false;
  for (const HloInstruction* operand : fusion.operands()) {
    if (!operand->shape().IsArray()) return false;
  }
  const HloInstruction* root = fused->root_instruction();
  const int64_t n = root->operand_count() / 2;
  if (root->opcode() != HloOpcode::kReduce || root->to_apply() == nullptr || n < 1 ||
      root->operand_count() != 2 * n) {
    return false;
  }
  for (const HloInstruction* instruction : fused->instructions()) {
    if (instruction == root || instruction->opcode() == HloOpcode::kParameter) continue;
    if (!IsFusibleElemental(*instruction)) return false;
  }
  return true;
}

bool IsFusionEmittable(const HloInstruction& fusion) {
  return IsLoopFusionEmittable(fusion) || IsReductionFusionEmittable(fusion);
}

namespace {

absl::Status EmitReductionFusion(KernelEmitContext& context, std::vector<IrArray> parameters) {
  const HloInstruction& fusion = context.instruction();
  const HloInstruction& reduce = *fusion.fused_instructions_computation()->root_instruction();
  const int64_t n = reduce.operand_count() / 2;
  FusedGenerators generators(context.builder(), context.module(), std::move(parameters));
  std::vector<ElementGenerator> inputs, inits;
  std::vector<IrArray> outputs;
  for (int64_t i = 0; i < n; ++i) {
    HMO_ASSIGN_OR_RETURN(ElementGenerator input, generators.Get(*reduce.operand(i)));
    HMO_ASSIGN_OR_RETURN(ElementGenerator init, generators.Get(*reduce.operand(n + i)));
    HMO_ASSIGN_OR_RETURN(IrArray output, reduce.shape().IsTuple() ? context.OutputArray({i})
                                                                  : context.OutputArray());
    inputs.push_back(std::move(input));
    inits.push_back(std::move(init));
    outputs.push_back(std::move(output));
  }
  return EmitReduceLoops(context, reduce, inputs, inits, outputs);
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
    if (!fusion.operand(i)->shape().IsArray())
      return FusionError(fusion, "tuple-shaped operands are not supported");
    HMO_ASSIGN_OR_RETURN(IrArray array, context.OperandArray(i));
    parameters.push_back(std::move(array));
  }
  if (IsReductionFusionEmittable(fusion))
    return EmitReductionFusion(context, std::move(parameters));

  // Outputs computed element by element in one loop, and outputs that are
  // dynamic-update-slices of their own buffer.
  std::vector<IrArray> outputs;
  std::vector<const HloInstruction*> expressions;
  std::vector<std::set<BufferAssignment::Slice>> output_slices;
  std::vector<std::pair<const HloInstruction*, IrArray>> in_place;
  std::vector<std::set<BufferAssignment::Slice>> in_place_slices;
  const bool multi_output = root->opcode() == HloOpcode::kTuple;
  const int64_t output_count = multi_output ? root->operand_count() : 1;
  for (int64_t i = 0; i < output_count; ++i) {
    const ShapeIndex index = multi_output ? ShapeIndex{i} : ShapeIndex{};
    const HloInstruction* expression = multi_output ? root->operand(i) : root;
    HMO_ASSIGN_OR_RETURN(IrArray array, context.OutputArray(index));
    if (const HloInstruction* dus =
            FusedInPlaceUpdate(fusion, expression, index, context.assignment())) {
      const Shape& updated_shape = fusion.operand(dus->operand(0)->parameter_number())->shape();
      in_place.emplace_back(dus, IrArray(array.base(), updated_shape));
      in_place_slices.push_back(context.assignment().GetAllSlices(&fusion, index));
      continue;
    }
    if (!outputs.empty() && array.shape().dimensions() != outputs[0].shape().dimensions()) {
      return FusionError(fusion, "multi-output fusion with outputs of different dimensions");
    }
    outputs.push_back(std::move(array));
    expressions.push_back(expression);
    output_slices.push_back(context.assignment().GetAllSlices(&fusion, index));
  }

  {
    // An in-place update's buffer is an output like the others: the operand
    // it updates overlaps it and is not marked; the rest are.
    std::vector<IrArray*> output_arrays, inputs;
    std::vector<std::set<BufferAssignment::Slice>> input_slices;
    for (IrArray& output : outputs) output_arrays.push_back(&output);
    for (auto& [dus, target] : in_place) output_arrays.push_back(&target);
    output_slices.insert(output_slices.end(), in_place_slices.begin(), in_place_slices.end());
    for (int64_t i = 0; i < fusion.operand_count(); ++i) {
      inputs.push_back(&parameters[i]);
      input_slices.push_back(ReadSlices(context.assignment(), *fusion.operand(i)));
    }
    AnnotateDisjointAccesses(context.llvm_context(), output_arrays, output_slices, inputs,
                             input_slices);
  }

  // The element-by-element outputs first: in-place updates then overwrite
  // buffers the other outputs may still have read.
  if (!outputs.empty()) {
    const bool flat = in_place.empty() && CanUseFlatLoop(*fused, parameters, outputs);
    std::vector<IrArray> loop_parameters = parameters;
    if (flat) {
      for (IrArray& parameter : loop_parameters) {
        if (parameter.shape().rank() != 0) {
          parameter =
              parameter.WithShape(Shape(parameter.element_type(), {parameter.element_count()}));
        }
      }
      for (IrArray& output : outputs) {
        output = output.WithShape(Shape(output.element_type(), {output.element_count()}));
      }
    }
    FusedGenerators generators(b, context.module(), loop_parameters);
    std::vector<ElementGenerator> output_generators;
    for (const HloInstruction* expression : expressions) {
      HMO_ASSIGN_OR_RETURN(ElementGenerator g, generators.Get(*expression));
      output_generators.push_back(std::move(g));
    }
    if (outputs.size() == 1) {
      HMO_RETURN_IF_ERROR(EmitElementLoop(context, outputs[0], output_generators[0], flat));
    } else {
      // Every element of every output is computed before any is written, so
      // an output sharing an operand's buffer cannot clobber it.
      HMO_RETURN_IF_ERROR(context.EmitOutputLoopNest(
          "loop", outputs[0].shape(), [&](const IrArray::Index& index) -> absl::Status {
            std::vector<llvm::Value*> values;
            for (const ElementGenerator& g : output_generators) {
              HMO_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
              values.push_back(v);
            }
            for (size_t i = 0; i < outputs.size(); ++i)
              outputs[i].EmitWriteElement(index, values[i], b);
            return absl::OkStatus();
          }));
    }
  }
  FusedGenerators generators(b, context.module(), parameters);
  for (const auto& [dus, target] : in_place) {
    HMO_RETURN_IF_ERROR(EmitInPlaceUpdate(context, generators, *dus, target));
  }
  return absl::OkStatus();
}

}  // namespace hmo::codegen
