#ifndef HMO_IR_COMPUTABLE_ELEMENT_TYPES_H_
#define HMO_IR_COMPUTABLE_ELEMENT_TYPES_H_

// The element types hmo computes on: the evaluator and the CPU backend take
// exactly these (other types parse, verify and lay out, but do not execute).
// One list, so the two executors cannot drift apart.

#include <cstdint>

#include "hmo/ir/primitive_type.h"

namespace hmo {

// X(type, ComputeT, StorageT): the host type values of `type` are computed in
// and the one an element is stored as (f16 and bf16 compute in float, pred is
// stored as a byte).
#define HMO_COMPUTABLE_ELEMENT_TYPES(X) \
  X(PRED, bool, uint8_t)                \
  X(S8, int8_t, int8_t)                 \
  X(S16, int16_t, int16_t)              \
  X(S32, int32_t, int32_t)              \
  X(S64, int64_t, int64_t)              \
  X(U8, uint8_t, uint8_t)               \
  X(U16, uint16_t, uint16_t)            \
  X(U32, uint32_t, uint32_t)            \
  X(U64, uint64_t, uint64_t)            \
  X(F16, float, uint16_t)               \
  X(BF16, float, uint16_t)              \
  X(F32, float, float)                  \
  X(F64, double, double)

constexpr bool IsComputableElementType(PrimitiveType type) {
  switch (type) {
#define HMO_COMPUTABLE_CASE(kType, ComputeT, StorageT) case PrimitiveType::kType:
    HMO_COMPUTABLE_ELEMENT_TYPES(HMO_COMPUTABLE_CASE)
#undef HMO_COMPUTABLE_CASE
    return true;
    default:
      return false;
  }
}

}  // namespace hmo

#endif  // HMO_IR_COMPUTABLE_ELEMENT_TYPES_H_
