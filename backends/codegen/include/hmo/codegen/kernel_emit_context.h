#ifndef HMO_CODEGEN_KERNEL_EMIT_CONTEXT_H_
#define HMO_CODEGEN_KERNEL_EMIT_CONTEXT_H_

// KernelEmitContext: what an op emitter (op_emitters.h) receives to emit the
// body of one kernel, `void kernel(char** buffer_table)`, computing one
// instruction of a non-fusion computation.
//
// The builder is positioned in the kernel's body; the op emitter appends
// code there and leaves the builder at the point where the kernel returns
// (the caller emits the `ret`). Arrays are addressed through the buffer
// table: the array of a value is buffer_table[slice.index] + slice.offset
// with the value's shape (and layout).
//
// Targets. The same op emitters serve the CPU and the GPU backends; a
// KernelTarget says how they differ:
//  - the parallel loop (EmitParallelLoop): op emitters emit their outermost
//    loop over the output (the iteration space whose iterations are
//    independent) through it, and only that loop; inner loops (reductions,
//    windows, rows) stay sequential (EmitLoopNest / EmitForLoop). The CPU's
//    ParallelLoopEmitter is a plain loop nest; the GPU's is a grid-stride
//    loop in which every thread runs some of the iterations, concurrently.
//  - whether runtime calls (runtime_functions.h: GEMM, conv2d, sort) exist;
//    without them dot and convolution use their loop nests and sort sorts
//    each row in the kernel.
//  - who initializes outputs that an op updates in place (scatter, sort: the
//    output starts as a copy of an operand). Copying and then updating needs
//    a grid-wide barrier on a GPU, so there the launcher copies before the
//    kernel starts (InitializeOutputFromOperand records the copy).

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/codegen/element_generator.h"
#include "hmo/codegen/ir_array.h"
#include "hmo/codegen/loop_emitter.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hmo::codegen {

// How a target runs the independent iterations of a kernel.
class ParallelLoopEmitter {
 public:
  using Body = std::function<absl::Status(const IrArray::Index&)>;
  virtual ~ParallelLoopEmitter() = default;

  // Emits code that, over one execution of the kernel (all its threads
  // together), calls body(index) exactly once for every index of `shape`
  // (an array shape; its layout, or the default, orders the iterations).
  // Iterations may run concurrently when IterationsRunConcurrently(): body
  // must then not depend on other iterations' writes. The builder is left
  // after the loop.
  virtual absl::Status EmitLoop(llvm::IRBuilder<>& b, std::string_view name, const Shape& shape,
                                const Body& body) = 0;
  // Emits `body` so that it runs once per execution of the kernel (on a GPU:
  // in one thread of the whole grid). The builder is left after it.
  virtual absl::Status EmitOnce(llvm::IRBuilder<>& b,
                                const std::function<absl::Status()>& body) = 0;
  // Whether EmitLoop's iterations may run at the same time (so writes of
  // different iterations to one element race).
  virtual bool IterationsRunConcurrently() const = 0;
};

// The CPU's: EmitLoop is EmitLoopNest (loop_emitter.h), EmitOnce emits the
// body as is; one thread runs the kernel.
class SequentialLoopEmitter final : public ParallelLoopEmitter {
 public:
  absl::Status EmitLoop(llvm::IRBuilder<>& b, std::string_view name, const Shape& shape,
                        const Body& body) override;
  absl::Status EmitOnce(llvm::IRBuilder<>& b, const std::function<absl::Status()>& body) override;
  bool IterationsRunConcurrently() const override { return false; }
};

// Where operand `operand_number` must be copied to before the kernel runs:
// the output array at `output_index` (of context.instruction()).
struct OutputInitialization {
  int64_t operand_number = 0;
  ShapeIndex output_index;
};

// What differs between targets (see the file comment). The defaults are
// the CPU's.
struct KernelTarget {
  // Null: a SequentialLoopEmitter. Not owned; must outlive the context.
  ParallelLoopEmitter* parallel_loops = nullptr;
  // Whether the kernel may call the CPU runtime (runtime_functions.h).
  bool runtime_calls_available = true;
  // Whether the launcher copies operands into outputs before the kernel
  // (InitializeOutputFromOperand records the copies instead of emitting
  // them).
  bool launcher_initializes_outputs = false;
};

class KernelEmitContext {
 public:
  // `buffer_table` is the kernel's char** argument.
  KernelEmitContext(llvm::IRBuilder<>& builder, llvm::Module& module, llvm::Function& kernel,
                    llvm::Value* buffer_table, const BufferAssignment& assignment,
                    const HloInstruction& instruction, KernelTarget target = KernelTarget());

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

  // The target's parallel loop over every index of `shape`
  // (ParallelLoopEmitter::EmitLoop): for an op's outermost output loop only.
  // In a partitioned kernel, this part's share of it (EmitLoopNestPart).
  absl::Status EmitParallelLoop(std::string_view name, const Shape& shape,
                                const std::function<absl::Status(const IrArray::Index&)>& body);
  // Element-by-element kernels (elementwise instructions, loop fusions,
  // in-place updates) emit their loops over the output through these. When
  // the caller made the kernel a part of a partitioned kernel
  // (SetOutputPartition), they emit only this part's share
  // (EmitLoopNestPart / EmitPartRange), so that the parts, run on separate
  // threads, together compute the output once. Where the parallel loop's
  // iterations run concurrently (a GPU's grid-stride loop) they are that
  // loop, each iteration one element (`tiling` is then not used).
  // `tiling`: as EmitLoopNest's.
  absl::Status EmitOutputLoopNest(std::string_view name, const Shape& shape,
                                  const std::function<absl::Status(const IrArray::Index&)>& body,
                                  const LoopTiling* tiling = nullptr);
  // The same over linear indices [0, count) (a flat loop).
  absl::Status EmitOutputLinearLoop(std::string_view name, int64_t count,
                                    const std::function<absl::Status(llvm::Value*)>& body);
  // Makes this kernel part `part` of `parts` (i64 values: kernel arguments).
  // EmitParallelLoop then emits this part's share too.
  void SetOutputPartition(llvm::Value* part, llvm::Value* parts) {
    part_ = part;
    parts_ = parts;
  }
  bool partitioned() const { return part_ != nullptr; }
  // `body` once per kernel execution (ParallelLoopEmitter::EmitOnce).
  absl::Status EmitOnce(const std::function<absl::Status()>& body);
  // Whether EmitParallelLoop's iterations may run concurrently.
  bool parallel_iterations_run_concurrently() const;
  // Whether the kernel may call the CPU runtime (runtime_functions.h).
  bool runtime_calls_available() const { return target_.runtime_calls_available; }

  // The output at `output_index` must start as a copy of operand
  // `operand_number` (same dimensions). When the launcher initializes
  // outputs, records that (see output_initializations(); the operand and
  // output must then have the same layout, else Unimplemented, since the
  // launcher copies bytes); otherwise calls `emit_copy`, which emits the copy
  // into the kernel (skipping it when both are the same memory).
  absl::Status InitializeOutputFromOperand(int64_t operand_number, const ShapeIndex& output_index,
                                           const std::function<absl::Status()>& emit_copy);
  // The copies recorded by InitializeOutputFromOperand, in call order.
  const std::vector<OutputInitialization>& output_initializations() const {
    return output_initializations_;
  }

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
  KernelTarget target_;
  SequentialLoopEmitter sequential_loops_;
  std::vector<OutputInitialization> output_initializations_;
  llvm::Value* part_ = nullptr;
  llvm::Value* parts_ = nullptr;
};

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_KERNEL_EMIT_CONTEXT_H_
