#ifndef HMO_IR_PRIMITIVE_TYPE_H_
#define HMO_IR_PRIMITIVE_TYPE_H_

// Element types of HLO arrays, with the names used in HLO text ("f32",
// "bf16", "s4", "pred", ...) and the bit/byte widths that buffer sizing uses.

#include <cstdint>
#include <optional>
#include <string_view>

namespace hmo {

// The element type of an array shape, or the kind of a non-array shape
// (TOKEN, OPAQUE_TYPE, TUPLE). Names follow XLA's xla_data.proto enum.
enum class PrimitiveType : int {
  PRIMITIVE_TYPE_INVALID = 0,
  PRED,
  S2,
  S4,
  S8,
  S16,
  S32,
  S64,
  U2,
  U4,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
  F8E4M3FN,
  F8E5M2,
  F8E4M3FNUZ,
  F8E5M2FNUZ,
  F8E4M3B11FNUZ,
  F8E4M3,
  F8E3M4,
  F8E8M0FNU,
  F4E2M1FN,
  C64,
  C128,
  TOKEN,
  OPAQUE_TYPE,
  TUPLE,
};

// Number of PrimitiveType enumerators, for tables indexed by the enum.
inline constexpr int kPrimitiveTypeCount = static_cast<int>(PrimitiveType::TUPLE) + 1;

namespace primitive_util {

// The lower-case text name ("f32", "pred", "token", "opaque", "tuple").
// Returns "invalid" for PRIMITIVE_TYPE_INVALID.
std::string_view LowercasePrimitiveTypeName(PrimitiveType type);

// Parses a lower-case text name; nullopt when `name` is not an element type
// name. Accepts "opaque" (text form) for OPAQUE_TYPE.
std::optional<PrimitiveType> StringToPrimitiveType(std::string_view name);

// Bits of one element: pred 8 (stored as a byte), s4 4, f32 32, c64 64,
// f8* 8, f4e2m1fn 4. Token, opaque, tuple and invalid: 0.
int BitWidth(PrimitiveType type);

// Bytes of one unpacked element: ceil(BitWidth/8), so sub-byte types take one
// byte each (packing is a layout property, see Layout::element_size_in_bits).
// Token, opaque, tuple and invalid: 0.
int ByteWidth(PrimitiveType type);

bool IsFloatingPointType(PrimitiveType type);  // f16, bf16, f32, f64, f8*, f4*.
bool IsComplexType(PrimitiveType type);        // c64, c128.
bool IsIntegralType(PrimitiveType type);       // s* and u* (not pred).
bool IsSignedIntegralType(PrimitiveType type); // s*.
bool IsUnsignedIntegralType(PrimitiveType type);  // u*.
bool IsSubByteType(PrimitiveType type);        // BitWidth < 8 (s2, s4, u2, u4, f4e2m1fn).
// True for every type that can be the element type of an array (everything
// except token, opaque, tuple and invalid).
bool IsArrayType(PrimitiveType type);
// True for the 8-bit and 4-bit float formats.
bool IsMinifloatType(PrimitiveType type);

// XLA-style aliases: IsFloatingPoint/IsComplex/IsInteger/IsSigned/IsSubByte.
inline bool IsFloatingPoint(PrimitiveType t) { return IsFloatingPointType(t); }
inline bool IsComplex(PrimitiveType t) { return IsComplexType(t); }
inline bool IsInteger(PrimitiveType t) { return IsIntegralType(t); }
// Signed means: signed integers, floats and complex (they carry a sign bit).
bool IsSigned(PrimitiveType t);
inline bool IsSubByte(PrimitiveType t) { return IsSubByteType(t); }

// For complex types, the type of each of the two components (c64 -> f32).
// Other types map to themselves.
PrimitiveType ComplexComponentType(PrimitiveType type);

}  // namespace primitive_util

// Namespace-level conveniences for the most common queries.
inline int BitWidth(PrimitiveType t) { return primitive_util::BitWidth(t); }
inline int ByteWidth(PrimitiveType t) { return primitive_util::ByteWidth(t); }
inline bool IsFloatingPoint(PrimitiveType t) { return primitive_util::IsFloatingPointType(t); }
inline bool IsComplex(PrimitiveType t) { return primitive_util::IsComplexType(t); }
inline bool IsInteger(PrimitiveType t) { return primitive_util::IsIntegralType(t); }
inline bool IsSigned(PrimitiveType t) { return primitive_util::IsSigned(t); }
inline bool IsSubByte(PrimitiveType t) { return primitive_util::IsSubByteType(t); }
inline bool IsArrayType(PrimitiveType t) { return primitive_util::IsArrayType(t); }
inline std::string_view PrimitiveTypeName(PrimitiveType t) {
  return primitive_util::LowercasePrimitiveTypeName(t);
}

}  // namespace hmo

#endif  // HMO_IR_PRIMITIVE_TYPE_H_
