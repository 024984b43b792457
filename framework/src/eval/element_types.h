#ifndef HMO_EVAL_ELEMENT_TYPES_H_
#define HMO_EVAL_ELEMENT_TYPES_H_

// The element types the evaluator computes on, and how their elements are
// loaded from and stored into a Literal's raw bytes.
//
// Each supported PrimitiveType has a "native" type that arithmetic runs in
// (narrow floats f16/bf16 compute in float, pred in bool) and a "storage" type
// that matches the bytes in the literal. Narrow float stores round to nearest
// even, so every result is rounded to its element type, as XLA:CPU does.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hmo/base/half_float_bits.h"
#include "hmo/ir/literal.h"
#include "hmo/ir/computable_element_types.h"
#include "hmo/ir/primitive_type.h"

namespace hmo::eval_internal {

template <PrimitiveType kType>
struct ElementTraits;

#define HMO_EVAL_ELEMENT_TRAITS(kType, NativeT, StorageT) \
  template <>                                              \
  struct ElementTraits<PrimitiveType::kType> {             \
    using Native = NativeT;                                \
    using Storage = StorageT;                              \
  };
HMO_COMPUTABLE_ELEMENT_TYPES(HMO_EVAL_ELEMENT_TRAITS)
#undef HMO_EVAL_ELEMENT_TRAITS

template <PrimitiveType kType>
using NativeOf = typename ElementTraits<kType>::Native;

template <PrimitiveType kType>
inline constexpr bool kIsNarrowFloat = kType == PrimitiveType::F16 || kType == PrimitiveType::BF16;

// bf16 converts without the generic (double-based) narrow-float routines,
// which keeps bf16-heavy modules fast; the bits are the backends' too.
inline float Bf16BitsToFloat(uint16_t bits) { return half_float_bits::Bf16ToF32(bits); }
inline uint16_t FloatToBf16Bits(float value) { return half_float_bits::F32ToBf16(value); }

// Element `i` of the raw bytes `data`, as the native type.
template <PrimitiveType kType>
inline NativeOf<kType> LoadElement(const uint8_t* data, int64_t i) {
  using Storage = typename ElementTraits<kType>::Storage;
  Storage stored;
  std::memcpy(&stored, data + i * static_cast<int64_t>(sizeof(Storage)), sizeof(Storage));
  if constexpr (kType == PrimitiveType::PRED) {
    return stored != 0;
  } else if constexpr (kType == PrimitiveType::BF16) {
    return Bf16BitsToFloat(stored);
  } else if constexpr (kType == PrimitiveType::F16) {
    return static_cast<float>(primitive_util::NarrowFloatBitsToDouble(kType, stored));
  } else {
    return stored;
  }
}

// Stores `value` as element `i`, rounding narrow floats to nearest even.
template <PrimitiveType kType>
inline void StoreElement(uint8_t* data, int64_t i, NativeOf<kType> value) {
  using Storage = typename ElementTraits<kType>::Storage;
  Storage stored;
  if constexpr (kType == PrimitiveType::PRED) {
    stored = value ? 1 : 0;
  } else if constexpr (kType == PrimitiveType::BF16) {
    stored = FloatToBf16Bits(value);
  } else if constexpr (kType == PrimitiveType::F16) {
    stored = primitive_util::DoubleToNarrowFloatBits(kType, static_cast<double>(value));
  } else {
    stored = value;
  }
  std::memcpy(data + i * static_cast<int64_t>(sizeof(Storage)), &stored, sizeof(Storage));
}

// Rounds a native value to what the element type can hold (identity except
// for narrow floats), for accumulations that must round on every step.
template <PrimitiveType kType>
inline NativeOf<kType> RoundToElementType(NativeOf<kType> value) {
  if constexpr (kIsNarrowFloat<kType>) {
    typename ElementTraits<kType>::Storage bits;
    uint8_t* raw = reinterpret_cast<uint8_t*>(&bits);
    StoreElement<kType>(raw, 0, value);
    return LoadElement<kType>(raw, 0);
  } else {
    return value;
  }
}

// Whether the evaluator computes on `type`.
inline bool IsEvaluatorElementType(PrimitiveType type) { return IsComputableElementType(type); }

inline absl::Status UnsupportedElementType(PrimitiveType type, std::string_view what) {
  return absl::UnimplementedError(absl::StrCat("evaluator: element type ",
                                               std::string(PrimitiveTypeName(type)),
                                               " is not supported (", std::string(what), ")"));
}

// Calls fn(std::integral_constant<PrimitiveType, T>{}) for the supported
// element type T == `type` and returns its status; Unimplemented naming
// `what` for any other type.
template <typename Fn>
absl::Status SwitchOnElementType(PrimitiveType type, std::string_view what, Fn&& fn) {
  switch (type) {
#define HMO_EVAL_CASE(kType, ComputeT, StorageT) \
  case PrimitiveType::kType:                     \
    return fn(std::integral_constant<PrimitiveType, PrimitiveType::kType>{});
    HMO_COMPUTABLE_ELEMENT_TYPES(HMO_EVAL_CASE)
#undef HMO_EVAL_CASE
    default:
      return UnsupportedElementType(type, what);
  }
}

// Raw byte pointers of an array literal.
inline const uint8_t* RawBytes(const Literal& literal) { return literal.raw_data().data(); }
inline uint8_t* MutableRawBytes(Literal* literal) { return literal->mutable_raw_data()->data(); }

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_ELEMENT_TYPES_H_
