#include "cpu/simplification/row_major_transpose.h"

#include <memory>
#include <utility>

#include "hmo/ir/shape.h"

namespace hmo::cpu {

HloInstruction* AddRowMajorTranspose(HloComputation& computation, HloInstruction* operand,
                                     const std::vector<int64_t>& order) {
  std::vector<int64_t> dimensions;
  for (int64_t d : order) dimensions.push_back(operand->shape().dimensions()[d]);
  std::unique_ptr<HloInstruction> transpose =
      HloInstruction::Create(HloOpcode::kTranspose,
                             ShapeUtil::MakeShapeWithDescendingLayout(
                                 operand->shape().element_type(), std::move(dimensions)),
                             {operand});
  transpose->set_dimensions(order);
  transpose->set_has_dimensions(true);
  return computation.AddInstruction(std::move(transpose));
}

bool IsRowMajorShape(const Shape& shape) {
  return ShapeUtil::LayoutOrDefault(shape) ==
         ShapeUtil::LayoutOrDefault(ShapeUtil::MakeShape(shape.element_type(), shape.dimensions()));
}

}  // namespace hmo::cpu
