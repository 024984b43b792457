// Kernel body of topk and of XLA:CPU's TopK custom call (op_emitters.h).
//
// Along the last dimension, the k first elements of each row in the order
// `before(a, b)` gives, ties in index order, and their s32 indices:
//   - the TopK custom call: before = its comparator, (a, b) or
//     (a, b, index_a, index_b);
//   - the topk opcode: by value in the total order (NaN above every number),
//     largest first unless largest=false.
// Each row (one iteration of the parallel loop) inserts its elements one by
// one into its k-long output row, which stays sorted: O(n k) per row, which
// is what top-k's small k wants, and no scratch memory.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/elemental_ir_emitter.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/codegen/window_loops.h"
#include "hmo/base/status_macros.h"

namespace hmo::codegen {
namespace {

absl::Status TopKError(const HloInstruction& topk, std::string_view why) {
  return absl::InvalidArgumentError("CPU top-k: " + topk.name() + ": " + std::string(why));
}

}  // namespace

absl::Status EmitTopK(KernelEmitContext& context) {
  const HloInstruction& topk = context.instruction();
  const Shape& shape = topk.shape();
  if (topk.operand_count() != 1 || !shape.IsTuple() || shape.tuple_shapes_size() != 2 ||
      topk.operand(0)->shape().rank() == 0) {
    return TopKError(topk, "needs one array operand and a (values, indices) result");
  }
  const HloComputation* comparator =
      topk.opcode() == HloOpcode::kCustomCall && !topk.called_computations().empty()
          ? topk.called_computations()[0]
          : nullptr;
  if (topk.opcode() == HloOpcode::kCustomCall && comparator == nullptr)
    return TopKError(topk, "no comparator");
  if (comparator != nullptr && comparator->num_parameters() != 2 &&
      comparator->num_parameters() != 4) {
    return TopKError(topk, "the comparator must take 2 or 4 parameters");
  }
  const bool largest = topk.GetRawAttribute("largest").value_or("true") != "false";
  HMO_ASSIGN_OR_RETURN(IrArray input, context.OperandArray(0));
  HMO_ASSIGN_OR_RETURN(IrArray values, context.OutputArray({0}));
  HMO_ASSIGN_OR_RETURN(IrArray indices, context.OutputArray({1}));
  const PrimitiveType element_type = input.element_type();
  const int64_t last = input.shape().rank() - 1;
  const int64_t n = input.shape().dimensions().back();
  const int64_t k = values.shape().dimensions().back();
  if (k > n) return TopKError(topk, "k exceeds the row length");
  if (indices.element_type() != PrimitiveType::S32) return TopKError(topk, "indices must be s32");

  llvm::IRBuilder<>& b = context.builder();
  ElementalIrEmitter elemental(b, context.module());
  // Whether the element (value, index) goes before (other, other_index).
  auto before = [&](llvm::Value* value, llvm::Value* index, llvm::Value* other,
                    llvm::Value* other_index) -> absl::StatusOr<llvm::Value*> {
    if (comparator != nullptr) {
      std::vector<llvm::Value*> args = {value, other};
      if (comparator->num_parameters() == 4) {
        args.push_back(b.CreateTrunc(index, b.getInt32Ty()));
        args.push_back(other_index);
      }
      HMO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> result,
                           context.EmitScalarComputation(*comparator, args));
      if (result.size() != 1 || !result[0]->getType()->isIntegerTy(1)) {
        return TopKError(topk, "the comparator does not return one pred");
      }
      return result[0];
    }
    if (primitive_util::IsFloatingPointType(element_type)) {
      llvm::Value* a = elemental.EmitTotalOrderKey(value);
      llvm::Value* c = elemental.EmitTotalOrderKey(other);
      return largest ? b.CreateICmpSGT(a, c) : b.CreateICmpSLT(a, c);
    }
    const bool is_unsigned =
        primitive_util::IsUnsignedIntegralType(element_type) || element_type == PrimitiveType::PRED;
    if (largest) return is_unsigned ? b.CreateICmpUGT(value, other) : b.CreateICmpSGT(value, other);
    return is_unsigned ? b.CreateICmpULT(value, other) : b.CreateICmpSLT(value, other);
  };

  std::vector<int64_t> row_dims = input.shape().dimensions();
  row_dims.back() = 1;
  const Shape rows(element_type, row_dims, Layout(input.minor_to_major()));
  llvm::AllocaInst* filled = context.EmitEntryAlloca(b.getInt64Ty(), "topk.filled");
  return context.EmitParallelLoop(
      "topk.rows", rows, [&](const IrArray::Index& row) -> absl::Status {
        b.CreateStore(b.getInt64(0), filled);
        return context.EmitForLoop(
            "topk.j", I64(b, 0), I64(b, n), 1, [&](llvm::Value* j) -> absl::Status {
              IrArray::Index at_j = row;
              at_j[last] = j;
              llvm::Value* value = input.EmitReadElement(at_j, b);
              llvm::Value* count = b.CreateLoad(b.getInt64Ty(), filled);
              // Sift: p walks down from `count` while the element goes before the
              // entry at p - 1, which moves up one (and falls off at k).
              llvm::LLVMContext& ctx = context.llvm_context();
              llvm::Function* function = b.GetInsertBlock()->getParent();
              llvm::BasicBlock* preheader = b.GetInsertBlock();
              auto* header = llvm::BasicBlock::Create(ctx, "topk.sift.header", function);
              auto* compare = llvm::BasicBlock::Create(ctx, "topk.sift.compare", function);
              auto* shift = llvm::BasicBlock::Create(ctx, "topk.sift.shift", function);
              auto* exit = llvm::BasicBlock::Create(ctx, "topk.sift.exit", function);
              b.CreateBr(header);
              b.SetInsertPoint(header);
              llvm::PHINode* p = b.CreatePHI(b.getInt64Ty(), 2, "topk.p");
              p->addIncoming(count, preheader);
              b.CreateCondBr(b.CreateICmpSGT(p, I64(b, 0)), compare, exit);

              b.SetInsertPoint(compare);
              llvm::Value* previous = b.CreateSub(p, I64(b, 1));
              IrArray::Index at_previous = row, at_p = row;
              at_previous[last] = previous;
              at_p[last] = p;
              llvm::Value* previous_value = values.EmitReadElement(at_previous, b);
              llvm::Value* previous_index = indices.EmitReadElement(at_previous, b);
              HMO_ASSIGN_OR_RETURN(llvm::Value * goes_before,
                                   before(value, j, previous_value, previous_index));
              b.CreateCondBr(goes_before, shift, exit);

              b.SetInsertPoint(shift);
              HMO_RETURN_IF_ERROR(EmitIf(context, b.CreateICmpSLT(p, I64(b, k)), "topk.move",
                                         [&]() -> absl::Status {
                                           values.EmitWriteElement(at_p, previous_value, b);
                                           indices.EmitWriteElement(at_p, previous_index, b);
                                           return absl::OkStatus();
                                         }));
              p->addIncoming(previous, b.GetInsertBlock());
              b.CreateBr(header);

              b.SetInsertPoint(exit);
              llvm::Value* position = p;
              HMO_RETURN_IF_ERROR(EmitIf(context, b.CreateICmpSLT(position, I64(b, k)),
                                         "topk.place", [&]() -> absl::Status {
                                           IrArray::Index at_position = row;
                                           at_position[last] = position;
                                           values.EmitWriteElement(at_position, value, b);
                                           indices.EmitWriteElement(
                                               at_position, b.CreateTrunc(j, b.getInt32Ty()), b);
                                           return absl::OkStatus();
                                         }));
              llvm::Value* next = b.CreateAdd(count, I64(b, 1));
              b.CreateStore(b.CreateSelect(b.CreateICmpSLT(next, I64(b, k)), next, I64(b, k)),
                            filled);
              return absl::OkStatus();
            });
      });
}

}  // namespace hmo::codegen
