#ifndef HMO_SRC_EXECUTION_FLOAT_DIGITS_H_
#define HMO_SRC_EXECUTION_FLOAT_DIGITS_H_

// Significand precision of the floating-point element types, shared by npy
// conversion (which integer types a float holds exactly) and random literals
// (how finely to quantize values so that each is representable).

#include "hmo/ir/primitive_type.h"

namespace hmo::execution_internal {

// Significand digits including the implicit bit: f32 24, f64 53, f16 11,
// bf16 8, f8e4m3* 4, f8e5m2* 3, f8e3m4 5, f4e2m1fn 2, f8e8m0fnu 1 (powers of
// two only). 0 for non-float types.
inline int SignificandDigits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F64: return 53;
    case PrimitiveType::F32: return 24;
    case PrimitiveType::F16: return 11;
    case PrimitiveType::BF16: return 8;
    case PrimitiveType::F8E3M4: return 5;
    case PrimitiveType::F8E4M3:
    case PrimitiveType::F8E4M3FN:
    case PrimitiveType::F8E4M3FNUZ:
    case PrimitiveType::F8E4M3B11FNUZ: return 4;
    case PrimitiveType::F8E5M2:
    case PrimitiveType::F8E5M2FNUZ: return 3;
    case PrimitiveType::F4E2M1FN: return 2;
    case PrimitiveType::F8E8M0FNU: return 1;
    default: return 0;
  }
}

}  // namespace hmo::execution_internal

#endif  // HMO_SRC_EXECUTION_FLOAT_DIGITS_H_
