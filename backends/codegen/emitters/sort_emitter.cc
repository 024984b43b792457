// Kernel body of sort (op_emitters.h).
//
// The operands are copied into the output arrays (by the kernel, or by the
// launcher when the target says so), which are then permuted in place.
//
// With the CPU runtime: the runtime sort (__hmo_cpu_sort,
// runtime_functions.h) does it. Whatever the layout, memory holds each array
// as [outer, sort_size, inner] with outer the dimensions physically more
// major than the sort dimension and inner those more minor, which is the
// runtime's view. The comparator computation becomes an LLVM function
// `void(i8* result, i8** elements)` that loads the 2N compared elements,
// evaluates the computation and stores its pred as a byte.
//
// Without it (GPU): a parallel loop over the rows (every index with the sort
// dimension fixed at 0) in which each iteration sorts its row with a stable
// insertion sort, the comparator inlined, all operands swapped together.
// Rows are disjoint, so iterations may run concurrently. O(sort_size^2)
// comparisons per row.

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/layout.h"

namespace hmo::codegen {
namespace {

// Copies `source` into `destination` (same dimensions and element type).
absl::Status EmitArrayCopy(KernelEmitContext& context, const IrArray& source,
                           const IrArray& destination) {
  llvm::IRBuilder<>& b = context.builder();
  if (source.minor_to_major() == destination.minor_to_major()) {
    const int64_t bytes = ShapeUtil::ByteSizeOf(source.shape());
    if (bytes > 0) {
      b.CreateMemMove(destination.base(), llvm::MaybeAlign(1), source.base(), llvm::MaybeAlign(1),
                      bytes);
    }
    return absl::OkStatus();
  }
  return context.EmitLoopNest("sort.copy", destination.shape(), [&](const IrArray::Index& index) {
    destination.EmitWriteElement(index, source.EmitReadElement(index, b), b);
    return absl::OkStatus();
  });
}

// Emits the comparator function for `comparator` over operands of
// `element_types`; returns it.
absl::StatusOr<llvm::Function*> EmitComparator(KernelEmitContext& context,
                                               const HloComputation& comparator,
                                               const std::vector<PrimitiveType>& element_types) {
  llvm::LLVMContext& ctx = context.llvm_context();
  llvm::Type* i8_ptr = llvm::Type::getInt8PtrTy(ctx);
  llvm::FunctionType* type = llvm::FunctionType::get(
      llvm::Type::getVoidTy(ctx), {i8_ptr, i8_ptr->getPointerTo()}, /*isVarArg=*/false);
  llvm::Function* function =
      llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                             context.kernel().getName() + ".less_than", context.module());
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", function));
  llvm::Value* result = function->getArg(0);
  llvm::Value* elements = function->getArg(1);
  std::vector<llvm::Value*> args;
  for (int64_t p = 0; p < comparator.num_parameters(); ++p) {
    const PrimitiveType element_type = element_types.at(p / 2);
    HMO_ASSIGN_OR_RETURN(llvm::Type * storage, StorageType(element_type, ctx));
    llvm::Value* slot = b.CreateLoad(i8_ptr, b.CreateConstGEP1_64(i8_ptr, elements, p));
    llvm::Value* stored = b.CreateLoad(storage, b.CreateBitCast(slot, storage->getPointerTo()));
    args.push_back(EmitStorageToCompute(element_type, stored, b));
  }
  ElementalIrEmitter elemental(b, context.module());
  HMO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> results,
                       elemental.EmitScalarComputation(comparator, args));
  if (results.size() != 1 || !results[0]->getType()->isIntegerTy(1)) {
    return absl::InvalidArgumentError("CPU sort: comparator " + comparator.name() +
                                      " does not return one pred");
  }
  b.CreateStore(b.CreateZExt(results[0], b.getInt8Ty()), result);
  b.CreateRetVoid();
  return function;
}

// Each row of `outputs` (sorted along `sort_dimension`) in an iteration of
// the parallel loop: for i in [1, size): j = i; while j > 0 and
// less(x[j], x[j-1]): swap x[j], x[j-1] (every operand); --j.
absl::Status EmitRowInsertionSorts(KernelEmitContext& context, const std::vector<IrArray>& outputs,
                                   int64_t sort_dimension) {
  const HloInstruction& sort = context.instruction();
  llvm::IRBuilder<>& b = context.builder();
  const Shape& shape = outputs[0].shape();
  const int64_t size = shape.dimensions()[sort_dimension];
  std::vector<int64_t> row_dims = shape.dimensions();
  row_dims[sort_dimension] = 1;
  const Shape rows(shape.element_type(), row_dims, Layout(outputs[0].minor_to_major()));
  return context.EmitParallelLoop(
      "sort.rows", rows, [&](const IrArray::Index& row) -> absl::Status {
        return context.EmitForLoop(
            "sort.i", I64(b, 1), I64(b, size), 1, [&](llvm::Value* i) -> absl::Status {
              llvm::LLVMContext& ctx = context.llvm_context();
              llvm::Function* function = b.GetInsertBlock()->getParent();
              llvm::BasicBlock* preheader = b.GetInsertBlock();
              auto* header = llvm::BasicBlock::Create(ctx, "sort.sift.header", function);
              auto* compare = llvm::BasicBlock::Create(ctx, "sort.sift.compare", function);
              auto* swap = llvm::BasicBlock::Create(ctx, "sort.sift.swap", function);
              auto* exit = llvm::BasicBlock::Create(ctx, "sort.sift.exit", function);
              b.CreateBr(header);
              b.SetInsertPoint(header);
              llvm::PHINode* j = b.CreatePHI(b.getInt64Ty(), 2, "sort.j");
              j->addIncoming(i, preheader);
              b.CreateCondBr(b.CreateICmpSGT(j, I64(b, 0)), compare, exit);

              b.SetInsertPoint(compare);
              llvm::Value* previous = b.CreateSub(j, I64(b, 1), "sort.j.prev");
              IrArray::Index at_j = row, at_previous = row;
              at_j[sort_dimension] = j;
              at_previous[sort_dimension] = previous;
              std::vector<llvm::Value*> current_values, previous_values, args;
              for (const IrArray& output : outputs) {
                current_values.push_back(output.EmitReadElement(at_j, b));
                previous_values.push_back(output.EmitReadElement(at_previous, b));
                args.push_back(current_values.back());
                args.push_back(previous_values.back());
              }
              HMO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> less,
                                   context.EmitScalarComputation(*sort.to_apply(), args));
              if (less.size() != 1 || !less[0]->getType()->isIntegerTy(1)) {
                return absl::InvalidArgumentError("sort: comparator of " + sort.name() +
                                                  " does not return one pred");
              }
              b.CreateCondBr(less[0], swap, exit);

              b.SetInsertPoint(swap);
              for (size_t k = 0; k < outputs.size(); ++k) {
                outputs[k].EmitWriteElement(at_previous, current_values[k], b);
                outputs[k].EmitWriteElement(at_j, previous_values[k], b);
              }
              j->addIncoming(previous, b.GetInsertBlock());
              b.CreateBr(header);
              b.SetInsertPoint(exit);
              return absl::OkStatus();
            });
      });
}

}  // namespace

absl::Status EmitSort(KernelEmitContext& context) {
  const HloInstruction& sort = context.instruction();
  const int64_t n = sort.operand_count();
  if (n < 1 || sort.to_apply() == nullptr || sort.dimensions().size() != 1 ||
      sort.to_apply()->num_parameters() != 2 * n) {
    return absl::InvalidArgumentError("CPU sort: " + sort.name() +
                                      " needs one sort dimension and a 2N-parameter comparator");
  }
  llvm::IRBuilder<>& b = context.builder();
  std::vector<IrArray> outputs;
  std::vector<PrimitiveType> element_types;
  for (int64_t i = 0; i < n; ++i) {
    HMO_ASSIGN_OR_RETURN(IrArray operand, context.OperandArray(i));
    HMO_ASSIGN_OR_RETURN(IrArray output,
                         sort.shape().IsTuple() ? context.OutputArray({i}) : context.OutputArray());
    HMO_RETURN_IF_ERROR(context.InitializeOutputFromOperand(
        i, sort.shape().IsTuple() ? ShapeIndex{i} : ShapeIndex{},
        [&]() { return EmitArrayCopy(context, operand, output); }));
    element_types.push_back(output.element_type());
    outputs.push_back(std::move(output));
  }

  const Shape& shape = outputs[0].shape();
  const int64_t sort_dimension = sort.dimensions(0);
  int64_t outer = 1, inner = 1;
  bool more_minor = true;
  for (int64_t d : outputs[0].minor_to_major()) {
    if (d == sort_dimension) {
      more_minor = false;
      continue;
    }
    (more_minor ? inner : outer) *= shape.dimensions()[d];
  }
  const int64_t sort_size = shape.dimensions()[sort_dimension];
  for (int64_t i = 1; i < n; ++i) {
    if (outputs[i].minor_to_major() != outputs[0].minor_to_major()) {
      return absl::UnimplementedError("CPU sort: operands of " + sort.name() +
                                      " have different layouts");
    }
  }
  if (outer * sort_size * inner == 0) return absl::OkStatus();
  if (!context.runtime_calls_available())
    return EmitRowInsertionSorts(context, outputs, sort_dimension);

  HMO_ASSIGN_OR_RETURN(llvm::Function * less_than,
                       EmitComparator(context, *sort.to_apply(), element_types));
  llvm::Type* i8_ptr = b.getInt8PtrTy();
  llvm::AllocaInst* operands =
      context.EmitEntryAlloca(llvm::ArrayType::get(i8_ptr, n), "sort.operands");
  llvm::AllocaInst* element_bytes =
      context.EmitEntryAlloca(llvm::ArrayType::get(b.getInt64Ty(), n), "sort.element_bytes");
  for (int64_t i = 0; i < n; ++i) {
    b.CreateStore(b.CreateBitCast(outputs[i].base(), i8_ptr),
                  b.CreateConstInBoundsGEP2_64(operands->getAllocatedType(), operands, 0, i));
    b.CreateStore(
        I64(b, ByteWidth(element_types[i])),
        b.CreateConstInBoundsGEP2_64(element_bytes->getAllocatedType(), element_bytes, 0, i));
  }
  std::optional<std::string_view> stable = sort.GetRawAttribute("is_stable");
  llvm::FunctionType* sort_type = llvm::FunctionType::get(
      b.getVoidTy(),
      {b.getInt64Ty(), b.getInt64Ty(), b.getInt64Ty(), b.getInt32Ty(), i8_ptr->getPointerTo(),
       b.getInt64Ty()->getPointerTo(), b.getInt32Ty(), less_than->getType()},
      /*isVarArg=*/false);
  llvm::FunctionCallee runtime_sort = context.GetOrDeclareFunction("__hmo_cpu_sort", sort_type);
  b.CreateCall(
      runtime_sort,
      {I64(b, outer), I64(b, sort_size), I64(b, inner), b.getInt32(static_cast<int32_t>(n)),
       b.CreateConstInBoundsGEP2_64(operands->getAllocatedType(), operands, 0, 0),
       b.CreateConstInBoundsGEP2_64(element_bytes->getAllocatedType(), element_bytes, 0, 0),
       b.getInt32(stable.has_value() && *stable == "true" ? 1 : 0), less_than});
  return absl::OkStatus();
}

}  // namespace hmo::codegen
