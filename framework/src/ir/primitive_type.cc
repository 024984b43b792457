#include "hmo/ir/primitive_type.h"

#include <array>

namespace hmo {
namespace primitive_util {
namespace {

struct TypeInfo {
  PrimitiveType type;
  std::string_view name;
  int bits;
};

// Indexed by the enum value; names are the HLO text spellings.
constexpr std::array<TypeInfo, kPrimitiveTypeCount> kTypes = {{
    {PrimitiveType::PRIMITIVE_TYPE_INVALID, "invalid", 0},
    {PrimitiveType::PRED, "pred", 8},
    {PrimitiveType::S2, "s2", 2},
    {PrimitiveType::S4, "s4", 4},
    {PrimitiveType::S8, "s8", 8},
    {PrimitiveType::S16, "s16", 16},
    {PrimitiveType::S32, "s32", 32},
    {PrimitiveType::S64, "s64", 64},
    {PrimitiveType::U2, "u2", 2},
    {PrimitiveType::U4, "u4", 4},
    {PrimitiveType::U8, "u8", 8},
    {PrimitiveType::U16, "u16", 16},
    {PrimitiveType::U32, "u32", 32},
    {PrimitiveType::U64, "u64", 64},
    {PrimitiveType::F16, "f16", 16},
    {PrimitiveType::BF16, "bf16", 16},
    {PrimitiveType::F32, "f32", 32},
    {PrimitiveType::F64, "f64", 64},
    {PrimitiveType::F8E4M3FN, "f8e4m3fn", 8},
    {PrimitiveType::F8E5M2, "f8e5m2", 8},
    {PrimitiveType::F8E4M3FNUZ, "f8e4m3fnuz", 8},
    {PrimitiveType::F8E5M2FNUZ, "f8e5m2fnuz", 8},
    {PrimitiveType::F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {PrimitiveType::F8E4M3, "f8e4m3", 8},
    {PrimitiveType::F8E3M4, "f8e3m4", 8},
    {PrimitiveType::F8E8M0FNU, "f8e8m0fnu", 8},
    {PrimitiveType::F4E2M1FN, "f4e2m1fn", 4},
    {PrimitiveType::C64, "c64", 64},
    {PrimitiveType::C128, "c128", 128},
    {PrimitiveType::TOKEN, "token", 0},
    {PrimitiveType::OPAQUE_TYPE, "opaque", 0},
    {PrimitiveType::TUPLE, "tuple", 0},
}};

const TypeInfo& Info(PrimitiveType t) { return kTypes[static_cast<int>(t)]; }

}  // namespace

std::string_view LowercasePrimitiveTypeName(PrimitiveType type) { return Info(type).name; }

std::optional<PrimitiveType> StringToPrimitiveType(std::string_view name) {
  for (int i = 1; i < kPrimitiveTypeCount; ++i) {
    if (kTypes[i].name == name) return kTypes[i].type;
  }
  return std::nullopt;
}

int BitWidth(PrimitiveType type) { return Info(type).bits; }

int ByteWidth(PrimitiveType type) { return (primitive_util::BitWidth(type) + 7) / 8; }

bool IsFloatingPointType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
    case PrimitiveType::F32:
    case PrimitiveType::F64:
      return true;
    default:
      return IsMinifloatType(type);
  }
}

bool IsMinifloatType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F8E4M3FN:
    case PrimitiveType::F8E5M2:
    case PrimitiveType::F8E4M3FNUZ:
    case PrimitiveType::F8E5M2FNUZ:
    case PrimitiveType::F8E4M3B11FNUZ:
    case PrimitiveType::F8E4M3:
    case PrimitiveType::F8E3M4:
    case PrimitiveType::F8E8M0FNU:
    case PrimitiveType::F4E2M1FN:
      return true;
    default:
      return false;
  }
}

bool IsComplexType(PrimitiveType type) {
  return type == PrimitiveType::C64 || type == PrimitiveType::C128;
}

bool IsSignedIntegralType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::S2:
    case PrimitiveType::S4:
    case PrimitiveType::S8:
    case PrimitiveType::S16:
    case PrimitiveType::S32:
    case PrimitiveType::S64:
      return true;
    default:
      return false;
  }
}

bool IsUnsignedIntegralType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::U2:
    case PrimitiveType::U4:
    case PrimitiveType::U8:
    case PrimitiveType::U16:
    case PrimitiveType::U32:
    case PrimitiveType::U64:
      return true;
    default:
      return false;
  }
}

bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

bool IsSigned(PrimitiveType type) {
  // f8e8m0fnu has no sign bit.
  if (type == PrimitiveType::F8E8M0FNU) return false;
  return IsSignedIntegralType(type) || IsFloatingPointType(type) || IsComplexType(type);
}

bool IsSubByteType(PrimitiveType type) {
  int bits = primitive_util::BitWidth(type);
  return bits > 0 && bits < 8;
}

bool IsArrayType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::PRIMITIVE_TYPE_INVALID:
    case PrimitiveType::TOKEN:
    case PrimitiveType::OPAQUE_TYPE:
    case PrimitiveType::TUPLE:
      return false;
    default:
      return true;
  }
}

PrimitiveType ComplexComponentType(PrimitiveType type) {
  if (type == PrimitiveType::C64) return PrimitiveType::F32;
  if (type == PrimitiveType::C128) return PrimitiveType::F64;
  return type;
}

}  // namespace primitive_util
}  // namespace hmo
