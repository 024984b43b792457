#ifndef HMO_CODEGEN_IR_ARRAY_H_
#define HMO_CODEGEN_IR_ARRAY_H_

// IrArray: an array in memory as generated code sees it, a base pointer plus
// an array Shape whose layout (minor_to_major; the descending default when
// the shape has none) fixes where each element lives:
//   address(index) = base + ElementBytes * sum_d index[d] * stride[d],
// stride[minor_to_major[0]] = 1, stride[minor_to_major[k+1]] =
// stride[minor_to_major[k]] * dims[minor_to_major[k]]. Tiled layouts are not
// supported (the arrays of the CPU backend are dense).
//
// Indices are logical: Index[d] is the position along dimension d, an i64
// llvm::Value. Elements are read and written in their compute type (see
// element_types.h), converted to/from the storage type at the memory access.

#include <cstdint>
#include <string>
#include <vector>

#include "hmo/codegen/element_types.h"
#include "hmo/ir/shape.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Value.h"

namespace hmo::codegen {

class IrArray {
 public:
  // One i64 value per logical dimension (dimension 0 first); empty for
  // scalars.
  using Index = std::vector<llvm::Value*>;

  IrArray() = default;
  // `base` points to the first byte of the array (any pointer type; it is
  // cast as needed). Precondition: `shape` is an array of a supported
  // element type (element_types.h).
  IrArray(llvm::Value* base, Shape shape);

  llvm::Value* base() const { return base_; }
  const Shape& shape() const { return shape_; }
  PrimitiveType element_type() const { return shape_.element_type(); }
  // The layout in effect (the shape's, or the descending default).
  const std::vector<int64_t>& minor_to_major() const { return minor_to_major_; }
  // Element stride of each logical dimension.
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t element_count() const { return element_count_; }

  // Physical position (in elements) of `index`.
  llvm::Value* EmitLinearIndex(const Index& index, llvm::IRBuilderBase& b) const;
  // The logical index of physical position `linear` (inverse of
  // EmitLinearIndex).
  Index EmitMultiIndex(llvm::Value* linear, llvm::IRBuilderBase& b) const;

  // Pointer to the storage of the element at `index` / physical position.
  llvm::Value* EmitElementAddress(const Index& index, llvm::IRBuilderBase& b) const;
  llvm::Value* EmitLinearElementAddress(llvm::Value* linear, llvm::IRBuilderBase& b) const;

  // Loads the element and converts it to the compute type.
  llvm::Value* EmitReadElement(const Index& index, llvm::IRBuilderBase& b) const;
  llvm::Value* EmitReadLinear(llvm::Value* linear, llvm::IRBuilderBase& b) const;
  // Converts `value` (compute type) to the storage type and stores it.
  void EmitWriteElement(const Index& index, llvm::Value* value, llvm::IRBuilderBase& b) const;
  void EmitWriteLinear(llvm::Value* linear, llvm::Value* value, llvm::IRBuilderBase& b) const;

  // The same memory viewed with another shape of the same element type and
  // element count (e.g. flattened to rank 1); the alias metadata is kept.
  IrArray WithShape(Shape shape) const {
    IrArray view(base_, std::move(shape));
    view.set_alias_metadata(alias_scope_, noalias_);
    return view;
  }

  // Scoped-alias metadata put on every load and store of this array (null:
  // none): `alias_scope` lists the scopes its accesses belong to, `noalias`
  // the scopes they never alias. Lets LLVM drop runtime overlap checks when
  // the kernel knows the buffers are disjoint.
  void set_alias_metadata(llvm::MDNode* alias_scope, llvm::MDNode* noalias) {
    alias_scope_ = alias_scope;
    noalias_ = noalias;
  }

 private:
  llvm::Type* StorageLlvmType(llvm::LLVMContext& context) const;
  void AnnotateAccess(llvm::Instruction* access) const;

  llvm::Value* base_ = nullptr;
  Shape shape_;
  std::vector<int64_t> minor_to_major_;
  std::vector<int64_t> strides_;
  int64_t element_count_ = 0;
  llvm::MDNode* alias_scope_ = nullptr;
  llvm::MDNode* noalias_ = nullptr;
};

// Constant i64.
llvm::Value* I64(llvm::IRBuilderBase& b, int64_t v);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_IR_ARRAY_H_
