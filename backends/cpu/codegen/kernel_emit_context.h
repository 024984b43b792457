#ifndef HMO_BACKENDS_CPU_CODEGEN_KERNEL_EMIT_CONTEXT_H_
#define HMO_BACKENDS_CPU_CODEGEN_KERNEL_EMIT_CONTEXT_H_

// KernelEmitContext: what an op emitter (op_emitters.h) receives to emit the
// body of one kernel, `void kernel(char** buffer_table)`, computing one
// instruction of a non-fusion computation.
//
// The builder is positioned in the kernel's body; the op emitter appends
// code there and leaves the builder at the point where the kernel returns
// (the caller emits the `ret`). Arrays are addressed through the buffer
// table: the array of a value is buffer_table[slice.index] + slice.offset
// with the value's shape (and layout).

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/element_generator.h"
#include "codegen/ir_array.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hmo::cpu {

class KernelEmitContext {
 public:
  // `buffer_table` is the kernel's char** argument.
  KernelEmitContext(llvm::IRBuilder<>& builder, llvm::Module& module, llvm::Function& kernel,
                    llvm::Value* buffer_table, const BufferAssignment& assignment,
                    const HloInstruction& instruction);

  llvm::IRBuilder<>& builder() { return builder_; }
  llvm::LLVMContext& llvm_context() { return module_.getContext(); }
  llvm::Module& module() { return module_; }
  llvm::Function& kernel() { return kernel_; }
  llvm::Value* buffer_table() { return buffer_table_; }
  const BufferAssignment& assignment() const { return assignment_; }
  const HloInstruction& instruction() const { return instruction_; }

  // The array holding `instruction` 's value at `index` (an array
  // sub-shape). Errors: no slice, or more than one.
  absl::StatusOr<IrArray> ArrayFor(const HloInstruction& instruction, const ShapeIndex& index = {});
  // ArrayFor(operand(i), index).
  absl::StatusOr<IrArray> OperandArray(int64_t operand_number, const ShapeIndex& index = {});
  // ArrayFor(instruction(), index): where the kernel writes its result; for
  // a tuple-shaped instruction, element `index` (e.g. {1}).
  absl::StatusOr<IrArray> OutputArray(const ShapeIndex& index = {});
  // The pointer to the first byte of `instruction`'s slice at `index` (i8*);
  // a null pointer for an empty array that has no slice.
  absl::StatusOr<llvm::Value*> SliceAddress(const HloInstruction& instruction,
                                            const ShapeIndex& index = {});

  // Reads operand `operand_number` (an array) at a logical index, in the
  // compute type. The operand's base pointer is loaded when this is called,
  // so call it before emitting the loops that use the generator.
  ElementGenerator OperandGenerator(int64_t operand_number);

  // Loops (loop_emitter.h), with this context's builder.
  absl::Status EmitLoopNest(std::string_view name, const Shape& shape,
                            const std::function<absl::Status(const IrArray::Index&)>& body);
  absl::Status EmitForLoop(std::string_view name, llvm::Value* start, llvm::Value* end,
                           int64_t step, const std::function<absl::Status(llvm::Value*)>& body);

  // Emits `computation` (a scalar sub-computation: to_apply of reduce, map,
  // reduce-window, scatter, select-and-scatter, or a sort comparator) inline
  // at the insertion point on `args` (one compute-type value per parameter,
  // in parameter order) and returns its result: one value for an array
  // root, one per element for a tuple root. Every instruction of the
  // computation must be elemental on scalars (elementwise ops, compare,
  // select, convert, constant, tuple, get-tuple-element, ...).
  absl::StatusOr<std::vector<llvm::Value*>> EmitScalarComputation(
      const HloComputation& computation, absl::Span<llvm::Value* const> args);

  // An alloca in the kernel's entry block (so loops do not grow the stack).
  llvm::AllocaInst* EmitEntryAlloca(llvm::Type* type, std::string_view name);

  // Declares (or finds) an external function, e.g. a runtime function of
  // runtime_functions.h or libm.
  llvm::FunctionCallee GetOrDeclareFunction(std::string_view name, llvm::FunctionType* type);

 private:
  llvm::IRBuilder<>& builder_;
  llvm::Module& module_;
  llvm::Function& kernel_;
  llvm::Value* buffer_table_;
  const BufferAssignment& assignment_;
  const HloInstruction& instruction_;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_CODEGEN_KERNEL_EMIT_CONTEXT_H_
