#include "hmo/ir/shape_equality.h"

namespace hmo {

bool ElementTypesMatch(PrimitiveType a, PrimitiveType b, bool ignore_fp_precision) {
  if (a == b) return true;
  return ignore_fp_precision && IsFloatingPoint(a) && IsFloatingPoint(b);
}

bool LayoutsEqual(const Shape& a, const Shape& b, bool ignore_memory_space) {
  if (!a.IsArray() || !b.IsArray()) return true;
  if (!a.has_layout() && !b.has_layout()) return true;
  Layout la = ShapeUtil::LayoutOrDefault(a);
  Layout lb = ShapeUtil::LayoutOrDefault(b);
  return ignore_memory_space ? la.EqualIgnoringMemorySpace(lb) : la == lb;
}

bool ShapesEqual(const Shape& a, const Shape& b, const ShapeEqualityOptions& options) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple()) return false;
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!ShapesEqual(a.tuple_shapes(i), b.tuple_shapes(i), options)) return false;
    }
    return true;
  }
  if (!a.IsArray() || !b.IsArray()) return a.element_type() == b.element_type();
  if (!ElementTypesMatch(a.element_type(), b.element_type(), options.ignore_fp_precision)) {
    return false;
  }
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (a.dimensions(i) == b.dimensions(i)) continue;
    bool dynamic = a.is_dynamic_dimension(static_cast<int>(i)) ||
                   b.is_dynamic_dimension(static_cast<int>(i)) ||
                   a.dimensions(i) == Shape::kUnboundedSize ||
                   b.dimensions(i) == Shape::kUnboundedSize;
    if (!dynamic) return false;
  }
  if (options.compare_layouts && !LayoutsEqual(a, b, options.ignore_memory_space)) return false;
  return true;
}

}  // namespace hmo
