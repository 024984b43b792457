#include "hmo/codegen/loop_emitter.h"

#include <string>

#include "hmo/base/status_macros.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"

namespace hmo::codegen {

absl::Status EmitForLoop(llvm::IRBuilderBase& b, std::string_view name, llvm::Value* start,
                         llvm::Value* end, int64_t step,
                         const std::function<absl::Status(llvm::Value* iv)>& body) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Function* function = b.GetInsertBlock()->getParent();
  const std::string prefix(name);
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(context, prefix + ".header", function);
  llvm::BasicBlock* body_block = llvm::BasicBlock::Create(context, prefix + ".body", function);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context, prefix + ".exit", function);
  b.CreateBr(header);

  b.SetInsertPoint(header);
  llvm::PHINode* iv = b.CreatePHI(b.getInt64Ty(), 2, prefix + ".iv");
  iv->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSLT(iv, end), body_block, exit);

  b.SetInsertPoint(body_block);
  HMO_RETURN_IF_ERROR(body(iv));
  llvm::Value* next = b.CreateAdd(iv, b.getInt64(step), prefix + ".next", true, true);
  iv->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);

  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status EmitLoopNest(llvm::IRBuilderBase& b, std::string_view name, const Shape& shape,
                          const std::function<absl::Status(const IrArray::Index& index)>& body) {
  for (int64_t d : shape.dimensions()) {
    if (d == 0) return absl::OkStatus();
  }
  const IrArray layout_view(nullptr, shape);
  const std::vector<int64_t>& minor_to_major = layout_view.minor_to_major();
  IrArray::Index index(shape.rank(), nullptr);
  // Loops from the most-major dimension (outermost) to the most-minor.
  std::function<absl::Status(int64_t)> emit_level = [&](int64_t level) -> absl::Status {
    if (level < 0) return body(index);
    const int64_t dim = minor_to_major[level];
    if (shape.dimensions(static_cast<int>(dim)) == 1) {
      index[dim] = b.getInt64(0);
      return emit_level(level - 1);
    }
    return EmitForLoop(b, std::string(name) + ".d" + std::to_string(dim), b.getInt64(0),
                       b.getInt64(shape.dimensions(static_cast<int>(dim))), 1,
                       [&](llvm::Value* iv) -> absl::Status {
                         index[dim] = iv;
                         return emit_level(level - 1);
                       });
  };
  return emit_level(static_cast<int64_t>(minor_to_major.size()) - 1);
}

}  // namespace hmo::codegen
