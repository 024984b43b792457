#include "gpu/codegen/gpu_parallel_loops.h"

#include <algorithm>
#include <string>

#include "hmo/codegen/ir_array.h"
#include "hmo/base/status_macros.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace hmo::gpu {
namespace {

llvm::Value* ReadSreg(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), id);
  return b.CreateZExt(b.CreateCall(f, {}), b.getInt64Ty());
}

llvm::Value* GlobalThreadIndex(llvm::IRBuilder<>& b) {
  llvm::Value* thread = ReadSreg(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* block = ReadSreg(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* block_size = ReadSreg(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  return b.CreateAdd(b.CreateMul(block, block_size), thread, "linear");
}

}  // namespace

absl::Status EmitGridStrideLoop(llvm::IRBuilder<>& b, int64_t count,
                                const std::function<absl::Status(llvm::Value*)>& body, std::string_view name) {
  llvm::Value* start = GlobalThreadIndex(b);
  llvm::Value* block_size = ReadSreg(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  llvm::Value* grid_size = ReadSreg(b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  llvm::Value* stride = b.CreateMul(block_size, grid_size, "stride");
  llvm::Value* end = b.getInt64(count);

  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& context = function->getContext();
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  const std::string prefix(name);
  auto* header = llvm::BasicBlock::Create(context, prefix + ".header", function);
  auto* body_block = llvm::BasicBlock::Create(context, prefix + ".body", function);
  auto* exit = llvm::BasicBlock::Create(context, prefix + ".exit", function);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, prefix + ".i");
  i->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSLT(i, end), body_block, exit);
  b.SetInsertPoint(body_block);
  HMO_RETURN_IF_ERROR(body(i));
  llvm::Value* next = b.CreateAdd(i, stride, prefix + ".next");
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status GridStrideLoopEmitter::EmitLoop(llvm::IRBuilder<>& b, std::string_view name, const Shape& shape,
                                             const Body& body) {
  const int64_t count = ShapeUtil::ElementsIn(shape);
  if (count == 0) return absl::OkStatus();
  iteration_count_ = std::max(iteration_count_, count);
  const codegen::IrArray space(nullptr, shape);
  return EmitGridStrideLoop(
      b, count, [&](llvm::Value* linear) -> absl::Status { return body(space.EmitMultiIndex(linear, b)); },
      name);
}

absl::Status GridStrideLoopEmitter::EmitOnce(llvm::IRBuilder<>& b, const std::function<absl::Status()>& body) {
  iteration_count_ = std::max<int64_t>(iteration_count_, 1);
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& context = function->getContext();
  auto* then_block = llvm::BasicBlock::Create(context, "once.then", function);
  auto* after_block = llvm::BasicBlock::Create(context, "once.after", function);
  b.CreateCondBr(b.CreateICmpEQ(GlobalThreadIndex(b), b.getInt64(0)), then_block, after_block);
  b.SetInsertPoint(then_block);
  HMO_RETURN_IF_ERROR(body());
  b.CreateBr(after_block);
  b.SetInsertPoint(after_block);
  return absl::OkStatus();
}

}  // namespace hmo::gpu
