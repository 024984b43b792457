#include "hmo/codegen/ir_array.h"

#include <utility>

namespace hmo::codegen {

llvm::Value* I64(llvm::IRBuilderBase& b, int64_t v) { return b.getInt64(static_cast<uint64_t>(v)); }

IrArray::IrArray(llvm::Value* base, Shape shape) : base_(base), shape_(std::move(shape)) {
  minor_to_major_ = ShapeUtil::LayoutOrDefault(shape_).minor_to_major();
  const int64_t rank = shape_.rank();
  if (static_cast<int64_t>(minor_to_major_.size()) != rank) {
    minor_to_major_ = LayoutUtil::MakeDescendingLayout(rank).minor_to_major();
  }
  strides_.assign(rank, 1);
  int64_t stride = 1;
  for (int64_t dim : minor_to_major_) {
    strides_[dim] = stride;
    stride *= shape_.dimensions(static_cast<int>(dim));
  }
  element_count_ = stride;
}

llvm::Type* IrArray::StorageLlvmType(llvm::LLVMContext& context) const {
  // The constructor's precondition guarantees a supported type.
  return *StorageType(shape_.element_type(), context);
}

void IrArray::AnnotateAccess(llvm::Instruction* access) const {
  if (alias_scope_ != nullptr) access->setMetadata(llvm::LLVMContext::MD_alias_scope, alias_scope_);
  if (noalias_ != nullptr) access->setMetadata(llvm::LLVMContext::MD_noalias, noalias_);
}

llvm::Value* IrArray::EmitLinearIndex(const Index& index, llvm::IRBuilderBase& b) const {
  llvm::Value* linear = nullptr;
  // Most-minor term last, so the innermost induction variable is added at
  // the end (keeps address arithmetic simple for the vectorizer).
  for (auto it = minor_to_major_.rbegin(); it != minor_to_major_.rend(); ++it) {
    const int64_t dim = *it;
    llvm::Value* term = index[dim];
    if (strides_[dim] != 1) term = b.CreateMul(term, I64(b, strides_[dim]), "", true, true);
    linear = linear == nullptr ? term : b.CreateAdd(linear, term, "", true, true);
  }
  return linear == nullptr ? I64(b, 0) : linear;
}

IrArray::Index IrArray::EmitMultiIndex(llvm::Value* linear, llvm::IRBuilderBase& b) const {
  Index index(shape_.rank(), nullptr);
  for (size_t k = 0; k < minor_to_major_.size(); ++k) {
    const int64_t dim = minor_to_major_[k];
    llvm::Value* v = linear;
    if (strides_[dim] != 1) v = b.CreateUDiv(v, I64(b, strides_[dim]));
    // The most-major dimension needs no remainder.
    if (k + 1 < minor_to_major_.size()) v = b.CreateURem(v, I64(b, shape_.dimensions(dim)));
    index[dim] = v;
  }
  return index;
}

llvm::Value* IrArray::EmitLinearElementAddress(llvm::Value* linear, llvm::IRBuilderBase& b) const {
  llvm::Type* type = StorageLlvmType(b.getContext());
  llvm::Value* typed = b.CreatePointerCast(base_, type->getPointerTo());
  return b.CreateInBoundsGEP(type, typed, linear);
}

llvm::Value* IrArray::EmitElementAddress(const Index& index, llvm::IRBuilderBase& b) const {
  return EmitLinearElementAddress(EmitLinearIndex(index, b), b);
}

llvm::Value* IrArray::EmitReadLinear(llvm::Value* linear, llvm::IRBuilderBase& b) const {
  llvm::Type* type = StorageLlvmType(b.getContext());
  llvm::LoadInst* loaded = b.CreateLoad(type, EmitLinearElementAddress(linear, b));
  AnnotateAccess(loaded);
  return EmitStorageToCompute(shape_.element_type(), loaded, b);
}

llvm::Value* IrArray::EmitReadElement(const Index& index, llvm::IRBuilderBase& b) const {
  return EmitReadLinear(EmitLinearIndex(index, b), b);
}

void IrArray::EmitWriteLinear(llvm::Value* linear, llvm::Value* value,
                              llvm::IRBuilderBase& b) const {
  llvm::Value* stored = EmitComputeToStorage(shape_.element_type(), value, b);
  AnnotateAccess(b.CreateStore(stored, EmitLinearElementAddress(linear, b)));
}

void IrArray::EmitWriteElement(const Index& index, llvm::Value* value,
                               llvm::IRBuilderBase& b) const {
  EmitWriteLinear(EmitLinearIndex(index, b), value, b);
}

}  // namespace hmo::codegen
