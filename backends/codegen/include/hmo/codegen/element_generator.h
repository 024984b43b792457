#ifndef HMO_CODEGEN_ELEMENT_GENERATOR_H_
#define HMO_CODEGEN_ELEMENT_GENERATOR_H_

// An element generator emits, at the builder's insertion point, the code
// computing one element of some array at a logical index and returns it in
// the element type's compute type (element_types.h). It may create blocks;
// it returns with the builder in the block where the value is available.

#include <functional>

#include "absl/status/statusor.h"
#include "hmo/codegen/ir_array.h"
#include "llvm/IR/Value.h"

namespace hmo::codegen {

using ElementGenerator = std::function<absl::StatusOr<llvm::Value*>(const IrArray::Index& index)>;

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_ELEMENT_GENERATOR_H_
