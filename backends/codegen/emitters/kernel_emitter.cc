#include "hmo/codegen/dynamic_slicing.h"
#include "hmo/codegen/kernel_emitter.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/alias_scopes.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/fusion_emitter.h"
#include "hmo/codegen/loop_emitter.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/transposed_blocks.h"
#include "hmo/codegen/transposed_reads.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/custom_call_targets.h"

namespace hmo::codegen {
namespace {

absl::Status NotSupported(const HloInstruction& instruction) {
  return absl::UnimplementedError("codegen: " + std::string(HloOpcodeString(instruction.opcode())) +
                                  " instruction " + instruction.name() + " is not supported");
}

// An element-by-element instruction whose arrays all have the output's
// dimensions and layout can run as one flat loop.
bool CanUseFlatLoop(const HloInstruction& instruction, const IrArray& output,
                    const std::vector<IrArray>& operands) {
  if (!instruction.IsElementwise()) return false;
  for (const IrArray& operand : operands) {
    if (operand.shape().rank() == 0) continue;
    if (operand.shape().dimensions() != output.shape().dimensions() ||
        operand.minor_to_major() != output.minor_to_major()) {
      return false;
    }
  }
  return true;
}

Shape Rank1(const Shape& shape, int64_t elements) {
  return Shape(shape.element_type(), {elements});
}

// dynamic-update-slice writing into its operand's buffer: only the update
// region is visited.
absl::Status EmitInPlaceDynamicUpdateSlice(KernelEmitContext& context, const IrArray& output) {
  const HloInstruction& dus = context.instruction();
  llvm::IRBuilder<>& b = context.builder();
  ElementalIrEmitter emitter(b, context.module());
  const Shape& update_shape = dus.operand(1)->shape();
  std::vector<llvm::Value*> starts;
  for (int64_t d = 0; d < update_shape.rank(); ++d) {
    HMO_ASSIGN_OR_RETURN(IrArray start_array, context.OperandArray(2 + d));
    llvm::Value* raw = start_array.EmitReadElement({}, b);
    const int64_t limit =
        dus.shape().dimensions(static_cast<int>(d)) - update_shape.dimensions(static_cast<int>(d));
    starts.push_back(EmitClampedSliceStart(b, raw, start_array.element_type(), limit));
  }
  HMO_ASSIGN_OR_RETURN(IrArray update, context.OperandArray(1));
  return context.EmitOutputLoopNest(
      "dus", update.shape(), [&](const IrArray::Index& index) -> absl::Status {
        IrArray::Index target(index.size());
        for (size_t d = 0; d < index.size(); ++d) target[d] = b.CreateAdd(starts[d], index[d]);
        output.EmitWriteElement(target, update.EmitReadElement(index, b), b);
        return absl::OkStatus();
      });
}

absl::Status EmitElementalKernel(KernelEmitContext& context) {
  const HloInstruction& instruction = context.instruction();
  if (!instruction.shape().IsArray()) return NotSupported(instruction);
  HMO_ASSIGN_OR_RETURN(IrArray output, context.OutputArray());
  if (instruction.opcode() == HloOpcode::kDynamicUpdateSlice &&
      UpdatesInPlace(instruction, instruction, {}, *instruction.operand(0), context.assignment())) {
    return EmitInPlaceDynamicUpdateSlice(context, output);
  }
  std::vector<IrArray> operands;
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    HMO_ASSIGN_OR_RETURN(IrArray operand, context.OperandArray(i));
    operands.push_back(std::move(operand));
  }
  {
    std::vector<IrArray*> inputs;
    std::vector<std::set<BufferAssignment::Slice>> input_slices;
    for (int64_t i = 0; i < instruction.operand_count(); ++i) {
      inputs.push_back(&operands[i]);
      input_slices.push_back(ReadSlices(context.assignment(), *instruction.operand(i)));
    }
    AnnotateDisjointAccesses(context.llvm_context(), {&output},
                             {context.assignment().GetAllSlices(&instruction, {})}, inputs,
                             input_slices);
  }
  const bool flat = CanUseFlatLoop(instruction, output, operands) && output.shape().rank() > 1;
  llvm::IRBuilder<>& b = context.builder();
  std::vector<ElementGenerator> generators;
  for (IrArray& operand : operands) {
    if (flat && operand.shape().rank() != 0)
      operand = operand.WithShape(Rank1(operand.shape(), operand.element_count()));
    const bool scalar = operand.shape().rank() == 0;
    generators.push_back(
        [&b, operand, scalar](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
          return operand.EmitReadElement(scalar ? IrArray::Index{} : index, b);
        });
  }
  ElementalIrEmitter emitter(b, context.module());
  HMO_ASSIGN_OR_RETURN(ElementGenerator generator,
                       emitter.MakeGenerator(instruction, std::move(generators)));
  return EmitElementLoop(context, output, generator, flat);
}

}  // namespace

bool NeedsKernel(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kAfterAll:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
      return false;
    case HloOpcode::kCustomCall:
      // Memory-space moves and placement annotations are copies (or nothing
      // when the buffers coincide).
      // AllocateBuffer (host offloading's uninitialized buffers) is only
      // its allocation.
      return !IsValuePassingCustomCallTarget(instruction.custom_call_target()) &&
             !(instruction.custom_call_target() == "AllocateBuffer" &&
               instruction.operand_count() == 0);
    case HloOpcode::kCopy:
      // A tuple copy copies its leaves; an array copy may change the layout.
      return instruction.shape().IsArray();
    default:
      return true;
  }
}

absl::Status EmitElementLoop(KernelEmitContext& context, const IrArray& output,
                             const ElementGenerator& generator, bool flat) {
  llvm::IRBuilder<>& b = context.builder();
  if (flat) {
    return context.EmitOutputLinearLoop(
        "elements", output.element_count(), [&](llvm::Value* i) -> absl::Status {
          HMO_ASSIGN_OR_RETURN(llvm::Value * v, generator(IrArray::Index{i}));
          output.EmitWriteLinear(i, v, b);
          return absl::OkStatus();
        });
  }
  // An operand read transposed: the loop runs in tiles.
  std::optional<LoopTiling> tiling;
  const Shape& kernel_shape = context.instruction().shape();
  if (kernel_shape.IsArray() && kernel_shape.dimensions() == output.shape().dimensions() &&
      output.minor_to_major() == IrArray(nullptr, kernel_shape).minor_to_major()) {
    tiling = TransposedReadTiling(context.instruction());
  }
  if (tiling.has_value() && CanEmitTransposedBlocks(context, output, *tiling)) {
    return EmitTransposedBlocks(context, output, generator, *tiling);
  }
  return context.EmitOutputLoopNest(
      "loop", output.shape(),
      [&](const IrArray::Index& index) -> absl::Status {
        HMO_ASSIGN_OR_RETURN(llvm::Value * v, generator(index));
        output.EmitWriteElement(index, v, b);
        return absl::OkStatus();
      },
      tiling.has_value() ? &*tiling : nullptr);
}

bool HasOpEmitter(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kGather:
    case HloOpcode::kScatter:
    case HloOpcode::kSort:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kTopK:
      return true;
    case HloOpcode::kCustomCall:
      return instruction.custom_call_target() == "TopK";
    default:
      return false;
  }
}

bool IsPartitionableKernel(const HloInstruction& instruction) {
  if (!NeedsKernel(instruction)) return false;
  // A multi-output reduction fusion's parts split its outputs' one index
  // space, as a single reduce's split its output's.
  if (instruction.opcode() == HloOpcode::kFusion && IsReductionFusionEmittable(instruction)) {
    bool all_column = true;
    for (const HloInstruction* reduce : FusedRootReduces(instruction)) {
      if (!reduce->shape().IsArray()) return false;
      all_column = all_column && IsColumnReduction(*reduce);
    }
    return !all_column;
  }
  if (!instruction.shape().IsArray()) return false;
  if (instruction.opcode() == HloOpcode::kReduce) return !IsColumnReduction(instruction);
  if (instruction.opcode() == HloOpcode::kFusion) {
    if (!IsLoopFusionEmittable(instruction)) return false;
    for (const HloInstruction* fused :
         instruction.fused_instructions_computation()->instructions()) {
      if (fused->opcode() == HloOpcode::kDynamicUpdateSlice) return false;
    }
    return true;
  }
  return !HasOpEmitter(instruction) && instruction.opcode() != HloOpcode::kDynamicUpdateSlice &&
         ElementalIrEmitter::IsElementalOpcode(instruction.opcode());
}

absl::Status EmitKernelBody(KernelEmitContext& context) {
  const HloInstruction& instruction = context.instruction();
  if (instruction.opcode() == HloOpcode::kFusion) return EmitFusionKernel(context);
  if (HasOpEmitter(instruction)) {
    switch (instruction.opcode()) {
      case HloOpcode::kDot:
        return EmitDot(context);
      case HloOpcode::kConvolution:
        return EmitConvolution(context);
      case HloOpcode::kReduce:
        return EmitReduce(context);
      case HloOpcode::kReduceWindow:
        return EmitReduceWindow(context);
      case HloOpcode::kGather:
        return EmitGather(context);
      case HloOpcode::kScatter:
        return EmitScatter(context);
      case HloOpcode::kSort:
        return EmitSort(context);
      case HloOpcode::kSelectAndScatter:
        return EmitSelectAndScatter(context);
      default:
        return EmitTopK(context);  // topk, TopK custom call
    }
  }
  if (ElementalIrEmitter::IsElementalOpcode(instruction.opcode()))
    return EmitElementalKernel(context);
  return NotSupported(instruction);
}

}  // namespace hmo::codegen
