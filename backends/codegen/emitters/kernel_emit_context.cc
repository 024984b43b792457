#include "hmo/codegen/kernel_emit_context.h"

#include <string>

#include "absl/status/status.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/loop_emitter.h"
#include "hmo/base/status_macros.h"
#include "llvm/IR/Function.h"

namespace hmo::codegen {

KernelEmitContext::KernelEmitContext(llvm::IRBuilder<>& builder, llvm::Module& module,
                                     llvm::Function& kernel, llvm::Value* buffer_table,
                                     const BufferAssignment& assignment,
                                     const HloInstruction& instruction, KernelTarget target)
    : builder_(builder),
      module_(module),
      kernel_(kernel),
      buffer_table_(buffer_table),
      assignment_(assignment),
      instruction_(instruction),
      target_(target) {
  if (target_.parallel_loops == nullptr) target_.parallel_loops = &sequential_loops_;
}

absl::Status SequentialLoopEmitter::EmitLoop(llvm::IRBuilder<>& b, std::string_view name,
                                             const Shape& shape, const Body& body) {
  return codegen::EmitLoopNest(b, name, shape, body);
}

absl::Status SequentialLoopEmitter::EmitOnce(llvm::IRBuilder<>&,
                                             const std::function<absl::Status()>& body) {
  return body();
}

absl::StatusOr<llvm::Value*> KernelEmitContext::SliceAddress(const HloInstruction& instruction,
                                                             const ShapeIndex& index) {
  std::set<BufferAssignment::Slice> slices = assignment_.GetAllSlices(&instruction, index);
  if (slices.empty() && ShapeUtil::IndexIsValid(instruction.shape(), index) &&
      ShapeUtil::ByteSizeOf(ShapeUtil::GetSubshape(instruction.shape(), index)) == 0) {
    // An empty array may get no buffer; nothing will be read or written.
    return llvm::ConstantPointerNull::get(builder_.getInt8PtrTy());
  }
  if (slices.size() != 1) {
    return absl::InternalError("CPU codegen: " + instruction.name() + " at " +
                               ShapeIndexToString(index) + " has " + std::to_string(slices.size()) +
                               " buffer slices; expected one");
  }
  const BufferAssignment::Slice slice = *slices.begin();
  llvm::IRBuilder<>& b = builder_;
  llvm::Type* i8_ptr = b.getInt8PtrTy();
  llvm::Value* entry = b.CreateInBoundsGEP(i8_ptr, buffer_table_, b.getInt64(slice.index));
  auto* base = b.CreateLoad(i8_ptr, entry, "buffer." + std::to_string(slice.index));
  // The table does not change while the module runs.
  base->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(b.getContext(), {}));
  if (slice.offset == 0) return base;
  return b.CreateInBoundsGEP(b.getInt8Ty(), base, b.getInt64(slice.offset));
}

absl::StatusOr<IrArray> KernelEmitContext::ArrayFor(const HloInstruction& instruction,
                                                    const ShapeIndex& index) {
  if (!ShapeUtil::IndexIsValid(instruction.shape(), index)) {
    return absl::InvalidArgumentError("CPU codegen: " + ShapeIndexToString(index) +
                                      " is not an index of " + instruction.name());
  }
  const Shape& shape = ShapeUtil::GetSubshape(instruction.shape(), index);
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError("CPU codegen: " + instruction.name() + " at " +
                                      ShapeIndexToString(index) + " is not an array");
  }
  HMO_RETURN_IF_ERROR(StorageType(shape.element_type(), module_.getContext()).status());
  if (instruction.opcode() == HloOpcode::kConstant && index.empty()) {
    // Constants are read from their read-only global, which holds the value
    // wherever the slice (when there is one) may since have been reused.
    ElementalIrEmitter emitter(builder_, module_);
    HMO_ASSIGN_OR_RETURN(llvm::GlobalVariable * global,
                         emitter.GetOrCreateConstantGlobal(instruction));
    return IrArray(global, shape);
  }
  HMO_ASSIGN_OR_RETURN(llvm::Value * base, SliceAddress(instruction, index));
  return IrArray(base, shape);
}

absl::StatusOr<IrArray> KernelEmitContext::OperandArray(int64_t operand_number,
                                                        const ShapeIndex& index) {
  return ArrayFor(*instruction_.operand(operand_number), index);
}

absl::StatusOr<IrArray> KernelEmitContext::OutputArray(const ShapeIndex& index) {
  return ArrayFor(instruction_, index);
}

ElementGenerator KernelEmitContext::OperandGenerator(int64_t operand_number) {
  // The array's base pointer is loaded here, once, not in the loops that
  // call the generator.
  absl::StatusOr<IrArray> array = OperandArray(operand_number);
  if (!array.ok()) {
    absl::Status error = array.status();
    return [error](const IrArray::Index&) -> absl::StatusOr<llvm::Value*> { return error; };
  }
  return [this, array = *array](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
    return array.EmitReadElement(index, builder_);
  };
}

absl::Status KernelEmitContext::EmitLoopNest(
    std::string_view name, const Shape& shape,
    const std::function<absl::Status(const IrArray::Index&)>& body) {
  return codegen::EmitLoopNest(builder_, name, shape, body);
}

absl::Status KernelEmitContext::EmitOutputLoopNest(
    std::string_view name, const Shape& shape,
    const std::function<absl::Status(const IrArray::Index&)>& body, const LoopTiling* tiling) {
  if (part_ != nullptr)
    return codegen::EmitLoopNestPart(builder_, name, shape, part_, parts_, body, tiling);
  if (parallel_iterations_run_concurrently())
    return target_.parallel_loops->EmitLoop(builder_, name, shape, body);
  return codegen::EmitLoopNest(builder_, name, shape, body, tiling);
}

absl::Status KernelEmitContext::EmitOutputLinearLoop(
    std::string_view name, int64_t count, const std::function<absl::Status(llvm::Value*)>& body) {
  if (part_ == nullptr && parallel_iterations_run_concurrently()) {
    return target_.parallel_loops->EmitLoop(
        builder_, name, Shape(PrimitiveType::S8, {count}),
        [&](const IrArray::Index& index) { return body(index[0]); });
  }
  if (part_ == nullptr) {
    return codegen::EmitForLoop(builder_, name, builder_.getInt64(0), builder_.getInt64(count), 1,
                                body);
  }
  auto [begin, end] = EmitPartRange(builder_, count, part_, parts_);
  return codegen::EmitForLoop(builder_, name, begin, end, 1, body);
}

absl::Status KernelEmitContext::EmitForLoop(std::string_view name, llvm::Value* start,
                                            llvm::Value* end, int64_t step,
                                            const std::function<absl::Status(llvm::Value*)>& body) {
  return codegen::EmitForLoop(builder_, name, start, end, step, body);
}

absl::Status KernelEmitContext::EmitParallelLoop(
    std::string_view name, const Shape& shape,
    const std::function<absl::Status(const IrArray::Index&)>& body) {
  if (part_ != nullptr)
    return codegen::EmitLoopNestPart(builder_, name, shape, part_, parts_, body);
  return target_.parallel_loops->EmitLoop(builder_, name, shape, body);
}

absl::Status KernelEmitContext::EmitOnce(const std::function<absl::Status()>& body) {
  return target_.parallel_loops->EmitOnce(builder_, body);
}

bool KernelEmitContext::parallel_iterations_run_concurrently() const {
  return target_.parallel_loops->IterationsRunConcurrently();
}

absl::Status KernelEmitContext::InitializeOutputFromOperand(
    int64_t operand_number, const ShapeIndex& output_index,
    const std::function<absl::Status()>& emit_copy) {
  if (!target_.launcher_initializes_outputs) return emit_copy();
  const Shape& operand = instruction_.operand(operand_number)->shape();
  const Shape& output = ShapeUtil::GetSubshape(instruction_.shape(), output_index);
  if (!operand.IsArray() || !output.IsArray() || operand.dimensions() != output.dimensions() ||
      operand.element_type() != output.element_type() ||
      ShapeUtil::LayoutOrDefault(operand).minor_to_major() !=
          ShapeUtil::LayoutOrDefault(output).minor_to_major()) {
    return absl::UnimplementedError(
        "codegen: output " + ShapeIndexToString(output_index) + " of " + instruction_.name() +
        " cannot start as a byte copy of operand " + std::to_string(operand_number) +
        " (different shape or layout)");
  }
  output_initializations_.push_back(OutputInitialization{operand_number, output_index});
  return absl::OkStatus();
}

absl::StatusOr<std::vector<llvm::Value*>> KernelEmitContext::EmitScalarComputation(
    const HloComputation& computation, absl::Span<llvm::Value* const> args) {
  ElementalIrEmitter emitter(builder_, module_);
  return emitter.EmitScalarComputation(computation, args);
}

llvm::AllocaInst* KernelEmitContext::EmitEntryAlloca(llvm::Type* type, std::string_view name) {
  llvm::BasicBlock& entry = kernel_.getEntryBlock();
  llvm::IRBuilder<> entry_builder(&entry, entry.getFirstInsertionPt());
  return entry_builder.CreateAlloca(type, nullptr, std::string(name));
}

llvm::FunctionCallee KernelEmitContext::GetOrDeclareFunction(std::string_view name,
                                                             llvm::FunctionType* type) {
  if (llvm::Function* existing = module_.getFunction(name);
      existing && !existing->isDeclaration()) {
    // A kernel took the name first; it yields it to the external function.
    existing->setName(std::string(name) + ".kernel");
  }
  return module_.getOrInsertFunction(name, type);
}

}  // namespace hmo::codegen
