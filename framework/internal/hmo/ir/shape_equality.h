#ifndef HMO_IR_SHAPE_EQUALITY_H_
#define HMO_IR_SHAPE_EQUALITY_H_

// The one shape comparison used (by the verifier and shape inference) everywhere an instruction's
// shape is compared with an expected shape (an inferred shape, an operand's
// shape, a called computation's parameter or root). Layout, floating-point
// precision and memory space can each be ignored.

#include "hmo/ir/primitive_type.h"
#include "hmo/ir/shape.h"

namespace hmo {

struct ShapeEqualityOptions {
  // Compare array layouts. A missing layout counts as the descending default
  // layout of the shape's rank, so `f32[2,3]` equals `f32[2,3]{1,0}`.
  bool compare_layouts = false;
  // With compare_layouts: ignore the memory space (`S(n)`) of layouts.
  bool ignore_memory_space = true;
  // Any two floating-point element types count as equal (XLA's "mixed
  // precision"); integral, pred, complex and token types must still match.
  bool ignore_fp_precision = false;
};

// Element types equal, or both floating point when `ignore_fp_precision`.
bool ElementTypesMatch(PrimitiveType a, PrimitiveType b, bool ignore_fp_precision);

// Same kind (array / tuple / token / opaque); arrays: matching element types
// and equal dimensions, where a dynamic or unbounded dimension on either side
// matches any size; tuples: same arity and element-wise equal. Layouts only
// per `options`.
bool ShapesEqual(const Shape& a, const Shape& b, const ShapeEqualityOptions& options = {});

// Layout equality used by ShapesEqual for arrays (missing = descending
// default). Non-arrays compare equal.
bool LayoutsEqual(const Shape& a, const Shape& b, bool ignore_memory_space);

}  // namespace hmo

#endif  // HMO_IR_SHAPE_EQUALITY_H_
