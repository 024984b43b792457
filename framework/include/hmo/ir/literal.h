#ifndef HMO_IR_LITERAL_H_
#define HMO_IR_LITERAL_H_

// Constant values of HLO `constant` instructions. A Literal owns a shape and
// the raw bytes of its elements (one ByteWidth-sized slot per element in
// row-major order, i.e. linear index = row-major position regardless of
// layout), or child literals for tuples. A literal may be "elided" (`{...}`
// in text): then it has a shape but no values.

#include <complex>
#include <optional>
#include <cstdint>
#include <string>
#include <vector>

#include "hmo/ir/shape.h"

namespace hmo {

// Which spelling ToStringWithoutShape uses for arrays and tuples. Scalars
// (other than inside tuples) read the same in both.
enum class LiteralTextStyle {
  // hmo's own text, the one its short form prints: pred elements
  // "true"/"false", every row of a rank >= 2 array inside "{ " and " }",
  // tuples "(a, b)".
  kHmo,
  // What XLA's HloModule::ToString() writes in `constant(...)`: pred array
  // elements 0/1; at rank >= 2 a row of at most one element is "{x}" and a
  // longer one "{ x, y }"; an array level that is not a row is "{ " ... " }",
  // and at rank >= 4 every level but the outermost and the rows opens with
  // "{ /*i<d>=<index>*/ " (d = the dimension of the enclosing level; nothing
  // after the comment but " }" when the level is empty); tuples "( a, b )".
  kXla,
};

class Literal {
 public:
  // An empty literal with an invalid shape.
  Literal() = default;
  // A literal of `shape` with all elements zero (recursively for tuples).
  explicit Literal(const Shape& shape);

  static Literal CreateElided(const Shape& shape);
  static Literal MakeTuple(std::vector<Literal> elements);
  // Scalar helpers.
  static Literal CreateR0FromDouble(PrimitiveType type, double value);
  static Literal CreateR0FromInt(PrimitiveType type, int64_t value);
  static Literal CreateR0Pred(bool value);
  // Rank-1 helpers: element i from values[i].
  static Literal CreateR1FromDoubles(PrimitiveType type, const std::vector<double>& values);
  static Literal CreateR1FromInts(PrimitiveType type, const std::vector<int64_t>& values);

  const Shape& shape() const { return shape_; }
  PrimitiveType element_type() const { return shape_.element_type(); }
  bool is_elided() const { return elided_; }
  void set_elided(bool e) { elided_ = e; }

  // Number of elements of an array literal.
  int64_t element_count() const;

  // Raw element storage of an array literal; element i occupies bytes
  // [i * ByteWidth, (i+1) * ByteWidth). Sub-byte types use one byte each,
  // holding the value in the low bits. Empty when elided.
  const std::vector<uint8_t>& raw_data() const { return data_; }
  std::vector<uint8_t>* mutable_raw_data() { return &data_; }

  // Typed element access by linear (row-major) index. Preconditions: array
  // literal, not elided, index in range.
  // Any element type read as double (pred: 0/1; complex: real part).
  double GetAsDouble(int64_t linear_index) const;
  // Integral/pred value; floats are truncated.
  int64_t GetAsInt64(int64_t linear_index) const;
  // Unsigned 64-bit value for u64 (exact); others via GetAsInt64.
  uint64_t GetAsUint64(int64_t linear_index) const;
  bool GetAsBool(int64_t linear_index) const { return GetAsInt64(linear_index) != 0; }
  std::complex<double> GetAsComplex(int64_t linear_index) const;
  // Converts `value` to the element type (rounding to nearest-even for
  // floats, wrapping for integers).
  void SetFromDouble(int64_t linear_index, double value);
  void SetFromInt64(int64_t linear_index, int64_t value);
  void SetFromUint64(int64_t linear_index, uint64_t value);
  void SetFromComplex(int64_t linear_index, std::complex<double> value);
  // A NaN whose mantissa bits are `payload` (XLA's `nan(0x...)`), for the
  // IEEE-style float types (f16, bf16, f32, f64, f8e5m2, f8e4m3, f8e3m4).
  // False, leaving the element unchanged, when the type has no such NaN or
  // the payload is 0 or wider than the mantissa.
  bool SetNanWithPayload(int64_t linear_index, bool negative, uint64_t payload);
  // The mantissa bits of a NaN element of those types; nullopt for other
  // elements. XLA's text writes `nan` for the quiet NaN without payload
  // (only the top mantissa bit set) and `nan(0x<mantissa>)` otherwise.
  std::optional<uint64_t> NanPayload(int64_t linear_index) const;
  // Row-major linear index of a multi-dimensional index.
  int64_t LinearIndex(const std::vector<int64_t>& multi_index) const;

  // Tuple elements.
  const std::vector<Literal>& tuple_elements() const { return tuple_elements_; }
  std::vector<Literal>* mutable_tuple_elements() { return &tuple_elements_; }

  // XLA's text with the shape: "f32[3] {1, 2, 3}", "(f32[] 1, s32[] 2)".
  std::string ToString() const;
  // Value text only, one line, as in `constant(...)`: "1", "{1, 2, 3}",
  // "{ { 1, 2 }, { 3, 4 } }", "(1, 2)", "{...}" when elided; see
  // LiteralTextStyle for the two spellings.
  std::string ToStringWithoutShape(LiteralTextStyle style = LiteralTextStyle::kHmo) const;
  // One element as text: floats in the shortest form that round-trips in the
  // element type ("1", "0.1", "1e-05", "-inf", "nan", "-0"), pred "true"/
  // "false", complex "(1, 2)".
  std::string ElementToString(int64_t linear_index) const;

  // Same shape (layout ignored), same elided flag, same bytes / elements.
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

 private:
  Shape shape_;
  bool elided_ = false;
  std::vector<uint8_t> data_;
  std::vector<Literal> tuple_elements_;
};

namespace primitive_util {
// Conversions between double and the bit patterns of the narrow float
// formats (f16, bf16, every f8 and f4 variant), rounding to nearest-even.
// Values out of range become inf, or NaN for formats without inf (f4e2m1fn
// saturates to its max finite value, as it has neither).
// Precondition: `type` is a float type of at most 16 bits.
uint16_t DoubleToNarrowFloatBits(PrimitiveType type, double value);
double NarrowFloatBitsToDouble(PrimitiveType type, uint16_t bits);
}  // namespace primitive_util

}  // namespace hmo

#endif  // HMO_IR_LITERAL_H_
