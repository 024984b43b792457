#include "hmo/ir/literal.h"
#include "str_cat.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;
namespace primitive_util {
namespace {

// How a narrow float format encodes NaN and infinity.
enum class NanStyle {
  kIeee,  // exponent all ones: mantissa 0 = inf, else NaN.
  kFn,    // no inf; only all-ones exponent and mantissa is NaN.
  kFnuz,  // no inf, no -0; the pattern "sign bit only" is NaN.
  kNone,  // neither inf nor NaN (f4e2m1fn).
};

struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  NanStyle nan_style;
};

FloatFormat FormatOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F16: return {5, 10, 15, NanStyle::kIeee};
    case PrimitiveType::BF16: return {8, 7, 127, NanStyle::kIeee};
    case PrimitiveType::F8E5M2: return {5, 2, 15, NanStyle::kIeee};
    case PrimitiveType::F8E4M3: return {4, 3, 7, NanStyle::kIeee};
    case PrimitiveType::F8E3M4: return {3, 4, 3, NanStyle::kIeee};
    case PrimitiveType::F8E4M3FN: return {4, 3, 7, NanStyle::kFn};
    case PrimitiveType::F8E4M3FNUZ: return {4, 3, 8, NanStyle::kFnuz};
    case PrimitiveType::F8E5M2FNUZ: return {5, 2, 16, NanStyle::kFnuz};
    case PrimitiveType::F8E4M3B11FNUZ: return {4, 3, 11, NanStyle::kFnuz};
    case PrimitiveType::F4E2M1FN: return {2, 1, 1, NanStyle::kNone};
    default: return {8, 7, 127, NanStyle::kIeee};
  }
}

}  // namespace

uint16_t DoubleToNarrowFloatBits(PrimitiveType type, double value) {
  if (type == PrimitiveType::F8E8M0FNU) {
    // Unsigned powers of two 2^(e-127); 0xFF is NaN; no zero.
    if (std::isnan(value) || value < 0 || std::isinf(value)) return 0xFF;
    if (value == 0) return 0;
    int e = 0;
    double f = std::frexp(value, &e);  // value = f * 2^e, f in [0.5, 1)
    int exp = e - 1;
    if (f * 2 >= 1.5) ++exp;  // round to the nearer power of two
    int biased = exp + 127;
    if (biased < 0) return 0;
    if (biased > 254) return 0xFF;
    return static_cast<uint16_t>(biased);
  }
  const FloatFormat fmt = FormatOf(type);
  const int m = fmt.mantissa_bits;
  const int sign_shift = fmt.exponent_bits + m;
  const uint32_t exp_all_ones = (1u << fmt.exponent_bits) - 1;
  const uint32_t sign_bit = 1u << sign_shift;
  uint32_t nan_bits;
  uint32_t max_finite;
  switch (fmt.nan_style) {
    case NanStyle::kIeee:
      nan_bits = (exp_all_ones << m) | (1u << (m - 1));
      max_finite = (exp_all_ones << m) - 1;
      break;
    case NanStyle::kFn:
      nan_bits = (1u << sign_shift) - 1;
      max_finite = nan_bits - 1;
      break;
    case NanStyle::kFnuz:
      nan_bits = sign_bit;
      max_finite = (1u << sign_shift) - 1;
      break;
    case NanStyle::kNone:
    default:
      nan_bits = (1u << sign_shift) - 1;  // no NaN: saturate
      max_finite = (1u << sign_shift) - 1;
      break;
  }
  if (std::isnan(value)) {
    // IEEE and "fn" formats keep the sign of NaN; the "fnuz" NaN is the
    // sign bit itself, and kNone has no NaN.
    const bool signed_nan = fmt.nan_style == NanStyle::kIeee || fmt.nan_style == NanStyle::kFn;
    if (signed_nan && std::signbit(value)) return nan_bits | sign_bit;
    return nan_bits;
  }
  const bool negative = std::signbit(value);
  const double a = std::fabs(value);
  uint32_t magnitude;
  if (std::isinf(a)) {
    if (fmt.nan_style == NanStyle::kIeee) {
      magnitude = exp_all_ones << m;
    } else if (fmt.nan_style == NanStyle::kNone) {
      magnitude = max_finite;
    } else {
      return nan_bits;
    }
  } else if (a == 0) {
    magnitude = 0;
  } else {
    const int emin = 1 - fmt.bias;
    int e2 = 0;
    std::frexp(a, &e2);
    int e = e2 - 1;  // a in [2^e, 2^(e+1))
    double q;
    uint64_t pattern;
    if (e < emin) {
      // Subnormal: units of 2^(emin - m); a carry into 2^m lands on the
      // smallest normal, which has the same bit pattern.
      q = std::nearbyint(std::ldexp(a, m - emin));
      pattern = static_cast<uint64_t>(q);
    } else {
      q = std::nearbyint(std::ldexp(a, m - e));
      if (q >= std::ldexp(1.0, m + 1)) {
        ++e;
        q = std::ldexp(1.0, m);
      }
      int64_t biased = static_cast<int64_t>(e) + fmt.bias;
      if (biased > static_cast<int64_t>(exp_all_ones) + 1) biased = exp_all_ones + 1;  // overflow
      pattern = (static_cast<uint64_t>(biased) << m) |
                (static_cast<uint64_t>(q) - (uint64_t{1} << m));
    }
    if (pattern > max_finite) {
      if (fmt.nan_style == NanStyle::kIeee) {
        magnitude = exp_all_ones << m;
      } else if (fmt.nan_style == NanStyle::kNone) {
        magnitude = max_finite;
      } else {
        return nan_bits;
      }
    } else {
      magnitude = static_cast<uint32_t>(pattern);
    }
  }
  if (negative && !(fmt.nan_style == NanStyle::kFnuz && magnitude == 0)) magnitude |= sign_bit;
  return static_cast<uint16_t>(magnitude);
}

double NarrowFloatBitsToDouble(PrimitiveType type, uint16_t bits) {
  if (type == PrimitiveType::F8E8M0FNU) {
    if ((bits & 0xFF) == 0xFF) return std::numeric_limits<double>::quiet_NaN();
    return std::ldexp(1.0, static_cast<int>(bits & 0xFF) - 127);
  }
  const FloatFormat fmt = FormatOf(type);
  const int m = fmt.mantissa_bits;
  const int sign_shift = fmt.exponent_bits + m;
  const uint32_t exp_all_ones = (1u << fmt.exponent_bits) - 1;
  const bool negative = (bits >> sign_shift) & 1;
  const uint32_t exp = (bits >> m) & exp_all_ones;
  const uint32_t mant = bits & ((1u << m) - 1);
  const double nan = std::copysign(std::numeric_limits<double>::quiet_NaN(), negative ? -1.0 : 1.0);
  switch (fmt.nan_style) {
    case NanStyle::kIeee:
      if (exp == exp_all_ones) {
        if (mant == 0) return negative ? -INFINITY : INFINITY;
        return nan;
      }
      break;
    case NanStyle::kFn:
      if (exp == exp_all_ones && mant == (1u << m) - 1) return nan;
      break;
    case NanStyle::kFnuz:
      // The one NaN has the sign bit set, and reads as -nan (as XLA prints it).
      if (negative && exp == 0 && mant == 0) return nan;
      break;
    case NanStyle::kNone:
      break;
  }
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), 1 - fmt.bias - m);
  } else {
    v = std::ldexp(static_cast<double>(mant + (1u << m)), static_cast<int>(exp) - fmt.bias - m);
  }
  return negative ? -v : v;
}

}  // namespace primitive_util

namespace {

using primitive_util::DoubleToNarrowFloatBits;
using primitive_util::NarrowFloatBitsToDouble;

bool IsNarrowFloat(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || primitive_util::IsMinifloatType(t);
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Sign-extends the low `bits` bits of `v`.
int64_t SignExtend(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = uint64_t{1} << (bits - 1);
  v &= (uint64_t{1} << bits) - 1;
  return static_cast<int64_t>((v ^ m) - m);
}

// XLA's round-trip float text: f32 and f64 first try their digits10
// precision and fall back to max_digits10; the narrow formats always use
// their max_digits10 (ceil(1 + mantissa digits * log10(2))).
std::string FloatToString(PrimitiveType type, double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  switch (type) {
    case PrimitiveType::F32:
    case PrimitiveType::C64: {
      const float f = static_cast<float>(v);
      std::snprintf(buf, sizeof(buf), "%.*g", 6, static_cast<double>(f));
      if (std::strtof(buf, nullptr) != f) std::snprintf(buf, sizeof(buf), "%.*g", 9, static_cast<double>(f));
      return buf;
    }
    case PrimitiveType::F64:
    case PrimitiveType::C128:
      std::snprintf(buf, sizeof(buf), "%.*g", 15, v);
      if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof(buf), "%.*g", 17, v);
      return buf;
    default: {
      int mantissa_digits;
      switch (type) {
        case PrimitiveType::F16: mantissa_digits = 11; break;
        case PrimitiveType::BF16: mantissa_digits = 8; break;
        case PrimitiveType::F8E5M2:
        case PrimitiveType::F8E5M2FNUZ: mantissa_digits = 3; break;
        case PrimitiveType::F8E3M4: mantissa_digits = 5; break;
        case PrimitiveType::F4E2M1FN: mantissa_digits = 2; break;
        case PrimitiveType::F8E8M0FNU: mantissa_digits = 1; break;
        default: mantissa_digits = 4; break;  // the e4m3 variants
      }
      const int max_digits10 = static_cast<int>(std::ceil(1 + mantissa_digits * std::log10(2.0)));
      std::snprintf(buf, sizeof(buf), "%.*g", max_digits10, v);
      return buf;
    }
  }
}

}  // namespace

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) tuple_elements_.emplace_back(s);
  } else if (shape.IsArray()) {
    data_.assign(static_cast<size_t>(ShapeUtil::ElementsIn(shape) * ByteWidth(shape.element_type())),
                 0);
  }
}

Literal Literal::CreateElided(const Shape& shape) {
  Literal l;
  l.shape_ = shape;
  l.elided_ = true;
  return l;
}

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal l;
  l.shape_ = Shape(std::move(shapes));
  l.tuple_elements_ = std::move(elements);
  return l;
}

Literal Literal::CreateR0FromDouble(PrimitiveType type, double value) {
  Literal l(Shape(type, {}));
  l.SetFromDouble(0, value);
  return l;
}

Literal Literal::CreateR0FromInt(PrimitiveType type, int64_t value) {
  Literal l(Shape(type, {}));
  l.SetFromInt64(0, value);
  return l;
}

Literal Literal::CreateR0Pred(bool value) { return CreateR0FromInt(PrimitiveType::PRED, value); }

Literal Literal::CreateR1FromDoubles(PrimitiveType type, const std::vector<double>& values) {
  Literal l(Shape(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) l.SetFromDouble(i, values[i]);
  return l;
}

Literal Literal::CreateR1FromInts(PrimitiveType type, const std::vector<int64_t>& values) {
  Literal l(Shape(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) l.SetFromInt64(i, values[i]);
  return l;
}

int64_t Literal::element_count() const {
  return shape_.IsArray() ? ShapeUtil::ElementsIn(shape_) : 0;
}

int64_t Literal::LinearIndex(const std::vector<int64_t>& multi_index) const {
  int64_t linear = 0;
  for (size_t d = 0; d < multi_index.size(); ++d) linear = linear * shape_.dimensions(d) + multi_index[d];
  return linear;
}

double Literal::GetAsDouble(int64_t i) const {
  const PrimitiveType t = element_type();
  const uint8_t* p = data_.data() + i * ByteWidth(t);
  switch (t) {
    case PrimitiveType::F32: return Load<float>(p);
    case PrimitiveType::F64: return Load<double>(p);
    case PrimitiveType::C64: return Load<float>(p);
    case PrimitiveType::C128: return Load<double>(p);
    case PrimitiveType::U64: return static_cast<double>(Load<uint64_t>(p));
    default:
      if (IsNarrowFloat(t)) {
        uint16_t bits = ByteWidth(t) == 2 ? Load<uint16_t>(p) : *p;
        return NarrowFloatBitsToDouble(t, bits);
      }
      return static_cast<double>(GetAsInt64(i));
  }
}

int64_t Literal::GetAsInt64(int64_t i) const {
  const PrimitiveType t = element_type();
  const uint8_t* p = data_.data() + i * ByteWidth(t);
  switch (t) {
    case PrimitiveType::PRED: return *p != 0;
    case PrimitiveType::S2: return SignExtend(*p, 2);
    case PrimitiveType::S4: return SignExtend(*p, 4);
    case PrimitiveType::S8: return Load<int8_t>(p);
    case PrimitiveType::S16: return Load<int16_t>(p);
    case PrimitiveType::S32: return Load<int32_t>(p);
    case PrimitiveType::S64: return Load<int64_t>(p);
    case PrimitiveType::U2: return *p & 0x3;
    case PrimitiveType::U4: return *p & 0xF;
    case PrimitiveType::U8: return *p;
    case PrimitiveType::U16: return Load<uint16_t>(p);
    case PrimitiveType::U32: return Load<uint32_t>(p);
    case PrimitiveType::U64: return static_cast<int64_t>(Load<uint64_t>(p));
    default: return static_cast<int64_t>(GetAsDouble(i));
  }
}

uint64_t Literal::GetAsUint64(int64_t i) const {
  if (element_type() == PrimitiveType::U64) return Load<uint64_t>(data_.data() + i * 8);
  return static_cast<uint64_t>(GetAsInt64(i));
}

std::complex<double> Literal::GetAsComplex(int64_t i) const {
  const PrimitiveType t = element_type();
  const uint8_t* p = data_.data() + i * ByteWidth(t);
  if (t == PrimitiveType::C64) return {Load<float>(p), Load<float>(p + 4)};
  if (t == PrimitiveType::C128) return {Load<double>(p), Load<double>(p + 8)};
  return {GetAsDouble(i), 0.0};
}

void Literal::SetFromDouble(int64_t i, double v) {
  const PrimitiveType t = element_type();
  uint8_t* p = data_.data() + i * ByteWidth(t);
  switch (t) {
    case PrimitiveType::F32: Store<float>(p, static_cast<float>(v)); return;
    case PrimitiveType::F64: Store<double>(p, v); return;
    case PrimitiveType::C64: Store<float>(p, static_cast<float>(v)); Store<float>(p + 4, 0); return;
    case PrimitiveType::C128: Store<double>(p, v); Store<double>(p + 8, 0); return;
    case PrimitiveType::PRED: *p = v != 0; return;
    case PrimitiveType::U64: Store<uint64_t>(p, static_cast<uint64_t>(v)); return;
    default:
      if (IsNarrowFloat(t)) {
        uint16_t bits = DoubleToNarrowFloatBits(t, v);
        if (ByteWidth(t) == 2) {
          Store<uint16_t>(p, bits);
        } else {
          *p = static_cast<uint8_t>(bits);
        }
        return;
      }
      SetFromInt64(i, static_cast<int64_t>(v));
  }
}

void Literal::SetFromInt64(int64_t i, int64_t v) {
  const PrimitiveType t = element_type();
  uint8_t* p = data_.data() + i * ByteWidth(t);
  switch (t) {
    case PrimitiveType::PRED: *p = v != 0; return;
    case PrimitiveType::S2:
    case PrimitiveType::U2: *p = static_cast<uint8_t>(v & 0x3); return;
    case PrimitiveType::S4:
    case PrimitiveType::U4: *p = static_cast<uint8_t>(v & 0xF); return;
    case PrimitiveType::S8:
    case PrimitiveType::U8: *p = static_cast<uint8_t>(v); return;
    case PrimitiveType::S16:
    case PrimitiveType::U16: Store<uint16_t>(p, static_cast<uint16_t>(v)); return;
    case PrimitiveType::S32:
    case PrimitiveType::U32: Store<uint32_t>(p, static_cast<uint32_t>(v)); return;
    case PrimitiveType::S64:
    case PrimitiveType::U64: Store<uint64_t>(p, static_cast<uint64_t>(v)); return;
    default: SetFromDouble(i, static_cast<double>(v)); return;
  }
}

void Literal::SetFromUint64(int64_t i, uint64_t v) {
  if (element_type() == PrimitiveType::U64) {
    Store<uint64_t>(data_.data() + i * 8, v);
    return;
  }
  if (IsFloatingPoint(element_type()) || IsComplex(element_type())) {
    SetFromDouble(i, static_cast<double>(v));
    return;
  }
  SetFromInt64(i, static_cast<int64_t>(v));
}

void Literal::SetFromComplex(int64_t i, std::complex<double> v) {
  const PrimitiveType t = element_type();
  uint8_t* p = data_.data() + i * ByteWidth(t);
  if (t == PrimitiveType::C64) {
    Store<float>(p, static_cast<float>(v.real()));
    Store<float>(p + 4, static_cast<float>(v.imag()));
  } else if (t == PrimitiveType::C128) {
    Store<double>(p, v.real());
    Store<double>(p + 8, v.imag());
  } else {
    SetFromDouble(i, v.real());
  }
}

namespace {
// Bit layout of the IEEE-style float types that carry NaN payloads.
struct IeeeLayout {
  int width;          // bits per element
  int mantissa_bits;  // the payload field
};
std::optional<IeeeLayout> IeeeLayoutOf(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F64: return IeeeLayout{64, 52};
    case PrimitiveType::F32: return IeeeLayout{32, 23};
    case PrimitiveType::F16: return IeeeLayout{16, 10};
    case PrimitiveType::BF16: return IeeeLayout{16, 7};
    case PrimitiveType::F8E5M2: return IeeeLayout{8, 2};
    case PrimitiveType::F8E4M3: return IeeeLayout{8, 3};
    case PrimitiveType::F8E3M4: return IeeeLayout{8, 4};
    default: return std::nullopt;
  }
}
uint64_t LoadBits(const uint8_t* p, int width) {
  uint64_t v = 0;
  std::memcpy(&v, p, width / 8);  // little-endian host, as everywhere in hmo
  return v;
}
}  // namespace

bool Literal::SetNanWithPayload(int64_t i, bool negative, uint64_t payload) {
  const std::optional<IeeeLayout> layout = IeeeLayoutOf(element_type());
  if (!layout || payload == 0 || payload >= (uint64_t{1} << layout->mantissa_bits)) return false;
  const int exponent_bits = layout->width - 1 - layout->mantissa_bits;
  const uint64_t exponent = ((uint64_t{1} << exponent_bits) - 1) << layout->mantissa_bits;
  const uint64_t sign = negative ? uint64_t{1} << (layout->width - 1) : 0;
  const uint64_t bits = sign | exponent | payload;
  std::memcpy(data_.data() + i * (layout->width / 8), &bits, layout->width / 8);
  return true;
}

std::optional<uint64_t> Literal::NanPayload(int64_t i) const {
  const std::optional<IeeeLayout> layout = IeeeLayoutOf(element_type());
  if (!layout) return std::nullopt;
  const uint64_t bits = LoadBits(data_.data() + i * (layout->width / 8), layout->width);
  const uint64_t mantissa = bits & ((uint64_t{1} << layout->mantissa_bits) - 1);
  const int exponent_bits = layout->width - 1 - layout->mantissa_bits;
  const uint64_t exponent = (bits >> layout->mantissa_bits) & ((uint64_t{1} << exponent_bits) - 1);
  if (exponent != (uint64_t{1} << exponent_bits) - 1 || mantissa == 0) return std::nullopt;
  return mantissa;
}

std::string Literal::ElementToString(int64_t i) const {
  const PrimitiveType t = element_type();
  if (t == PrimitiveType::PRED) return GetAsInt64(i) ? "true" : "false";
  if (IsComplex(t)) {
    std::complex<double> c = GetAsComplex(i);
    PrimitiveType ct = primitive_util::ComplexComponentType(t);
    return StrCat("(", FloatToString(ct, c.real()), ", ", FloatToString(ct, c.imag()), ")");
  }
  if (IsFloatingPoint(t)) {
    if (std::optional<uint64_t> payload = NanPayload(i)) {
      const std::optional<IeeeLayout> layout = IeeeLayoutOf(t);
      const bool negative = std::signbit(GetAsDouble(i));
      if (*payload != uint64_t{1} << (layout->mantissa_bits - 1)) {
        return StrCat(negative ? "-" : "", "nan(0x", absl::Hex(*payload), ")");
      }
    }
    return FloatToString(t, GetAsDouble(i));
  }
  if (t == PrimitiveType::U64) return StrCat(GetAsUint64(i));
  return StrCat(GetAsInt64(i));
}

namespace {
// hmo's rank >= 1 array text: rank 1 "{a, b}", higher ranks
// "{ { a, b }, { c, d } }".
void AppendArray(const Literal& lit, int64_t dim, int64_t* linear, std::string* out) {
  const Shape& shape = lit.shape();
  const int64_t n = shape.dimensions(dim);
  const bool innermost = dim == shape.rank() - 1;
  const bool spaced = shape.rank() > 1;
  if (n == 0) {
    out->append("{}");
    return;
  }
  out->append(spaced ? "{ " : "{");
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out->append(", ");
    if (innermost) {
      out->append(lit.ElementToString((*linear)++));
    } else {
      AppendArray(lit, dim + 1, linear, out);
    }
  }
  out->append(spaced ? " }" : "}");
}

// XLA's array text (LiteralTextStyle::kXla). `index` is this level's
// position in the enclosing level (unused at dim 0).
void AppendXlaArray(const Literal& lit, int64_t dim, int64_t index, int64_t* linear, std::string* out) {
  const Shape& shape = lit.shape();
  const int64_t rank = shape.rank();
  const int64_t n = shape.dimensions(dim);
  if (dim == rank - 1) {
    // A row: its elements, padded by spaces at rank >= 2 when there are
    // several of them.
    const bool padded = rank > 1 && n > 1;
    out->append(padded ? "{ " : "{");
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0) out->append(", ");
      const int64_t at = (*linear)++;
      if (lit.element_type() == PrimitiveType::PRED) {
        out->append(lit.GetAsBool(at) ? "1" : "0");
      } else {
        out->append(lit.ElementToString(at));
      }
    }
    out->append(padded ? " }" : "}");
    return;
  }
  out->append("{");
  if (rank > 3 && dim > 0) {
    StrAppend(out, " /*i", dim - 1, "=", index, "*/");
    if (n > 0) out->append(" ");
  } else {
    out->append(" ");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out->append(", ");
    AppendXlaArray(lit, dim + 1, i, linear, out);
  }
  out->append(" }");
}
}  // namespace

std::string Literal::ToStringWithoutShape(LiteralTextStyle style) const {
  if (elided_) return "{...}";
  const bool xla = style == LiteralTextStyle::kXla;
  if (shape_.IsTuple()) {
    std::string out = xla ? "( " : "(";
    for (size_t i = 0; i < tuple_elements_.size(); ++i) {
      if (i > 0) out += ", ";
      out += tuple_elements_[i].ToStringWithoutShape(style);
    }
    return out + (xla ? " )" : ")");
  }
  if (!shape_.IsArray()) return "";
  if (shape_.rank() == 0) return ElementToString(0);
  std::string out;
  int64_t linear = 0;
  if (xla) {
    AppendXlaArray(*this, 0, 0, &linear, &out);
  } else {
    AppendArray(*this, 0, &linear, &out);
  }
  return out;
}

std::string Literal::ToString() const {
  if (shape_.IsTuple() && !elided_) {
    std::string out = "(";
    for (size_t i = 0; i < tuple_elements_.size(); ++i) {
      if (i > 0) out += ", ";
      out += tuple_elements_[i].ToString();
    }
    return out + ")";
  }
  return StrCat(shape_.ToString(true), " ", ToStringWithoutShape());
}

bool Literal::operator==(const Literal& o) const {
  return ShapeUtil::EqualIgnoringLayout(shape_, o.shape_) && elided_ == o.elided_ &&
         data_ == o.data_ && tuple_elements_ == o.tuple_elements_;
}

}  // namespace hmo
