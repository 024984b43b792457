#ifndef HMO_EVAL_ELEMENTWISE_SEMANTICS_H_
#define HMO_EVAL_ELEMENTWISE_SEMANTICS_H_

// The meaning of every elementwise HLO operation on one element, in the
// native type the evaluator computes in (see element_types.h). These are the
// definitions the CPU backend is checked against, so each follows XLA's
// documented semantics, including its edge cases:
//  - integer arithmetic wraps (two's complement);
//  - x / 0 is -1 (all bits set) and x % 0 is x for integers; INT_MIN / -1 is
//    INT_MIN and INT_MIN % -1 is 0;
//  - shifts by at least the bit width give 0 (or the sign fill for an
//    arithmetic right shift);
//  - maximum/minimum of floats propagate NaN;
//  - float -> integer conversion saturates and maps NaN to 0.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hmo/ir/dimension_numbers.h"

namespace hmo::eval_internal {

template <typename T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T>;
template <typename T>
inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// ------------------------------------------------------- integer helpers
template <typename T>
T WrappingAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T>
T WrappingSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename T>
T WrappingMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  // Promote to at least unsigned int so that u16 * u16 does not go through
  // (signed) int and overflow.
  using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) *
                                       static_cast<Wide>(static_cast<U>(b))));
}
template <typename T>
T IntegerDivide(T a, T b) {
  if (b == 0) return static_cast<T>(-1);
  if constexpr (std::is_signed_v<T>) {
    if (a == std::numeric_limits<T>::min() && b == -1) return a;
  }
  return static_cast<T>(a / b);
}
template <typename T>
T IntegerRemainder(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) {
    if (a == std::numeric_limits<T>::min() && b == -1) return 0;
  }
  return static_cast<T>(a % b);
}
// Exponentiation by squaring; a negative exponent truncates 1 / a^|b|
// toward zero (1 for a == 1, +-1 for a == -1, otherwise 0).
template <typename T>
T IntegerPower(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b % 2 == 0) ? 1 : -1;
      return 0;
    }
  }
  T result = 1;
  T base = a;
  auto exponent = static_cast<std::make_unsigned_t<T>>(b);
  while (exponent != 0) {
    if (exponent & 1) result = WrappingMul(result, base);
    base = WrappingMul(base, base);
    exponent >>= 1;
  }
  return result;
}
template <typename T>
T ShiftLeft(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if (static_cast<U>(b) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<U>(b)));
}
template <typename T>
T ShiftRightLogical(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if (static_cast<U>(b) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<U>(a) >> static_cast<U>(b));
}
template <typename T>
T ShiftRightArithmetic(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  S signed_a = static_cast<S>(a);
  if (static_cast<U>(b) >= sizeof(T) * 8) return static_cast<T>(signed_a < 0 ? -1 : 0);
  return static_cast<T>(static_cast<S>(signed_a >> static_cast<U>(b)));
}

// ------------------------------------------------------- float helpers
template <typename T>
T FloatMaximum(T a, T b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  // +0 is larger than -0, as in XLA:CPU.
  if (a == b && a == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <typename T>
T FloatMinimum(T a, T b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b && a == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <typename T>
T FloatSign(T x) {
  if (std::isnan(x) || x == 0) return x;
  return x > 0 ? T(1) : T(-1);
}
template <typename T>
T Logistic(T x) {
  return T(1) / (T(1) + std::exp(-x));
}
// Rounds halfway cases to even regardless of the current rounding mode.
template <typename T>
T RoundNearestEven(T x) {
  T rounded = std::round(x);  // Halfway away from zero.
  if (std::fabs(x - std::trunc(x)) == T(0.5)) {
    rounded = T(2) * std::round(x / T(2));
  }
  return rounded;
}

// Total order over floats (XLA's TOTALORDER comparison type): -NaN < -inf <
// ... < -0 < +0 < ... < +inf < +NaN, as signed integers of the same width.
template <typename T>
auto TotalOrderKey(T x) {
  using Bits = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  Bits bits;
  std::memcpy(&bits, &x, sizeof(bits));
  constexpr Bits kMagnitudeMask = std::numeric_limits<Bits>::max();
  return bits < 0 ? static_cast<Bits>(bits ^ kMagnitudeMask) : bits;
}

template <typename T>
bool CompareElements(T a, T b, ComparisonDirection direction, bool total_order) {
  if constexpr (kIsFloat<T>) {
    if (total_order) {
      return CompareElements(TotalOrderKey(a), TotalOrderKey(b), direction, false);
    }
  }
  switch (direction) {
    case ComparisonDirection::kEq:
      return a == b;
    case ComparisonDirection::kNe:
      return a != b;
    case ComparisonDirection::kGe:
      return a >= b;
    case ComparisonDirection::kGt:
      return a > b;
    case ComparisonDirection::kLe:
      return a <= b;
    case ComparisonDirection::kLt:
      return a < b;
  }
  return false;
}

// ------------------------------------------------------- conversion
// XLA's convert of one element from native type From to native type To:
// float -> integer truncates toward zero, saturating at the integer's range,
// NaN -> 0; anything -> pred is "!= 0"; integer -> integer wraps.
template <typename To, typename From>
To ConvertElement(From value) {
  if constexpr (kIsBool<To>) {
    return value != From(0);
  } else if constexpr (kIsInt<To> && kIsFloat<From>) {
    if (std::isnan(value)) return 0;
    // The bounds as From: min is a power of two (exact); max+1 is too, and
    // anything >= it saturates.
    const From lowest = static_cast<From>(std::numeric_limits<To>::min());
    const From above_max = static_cast<From>(std::numeric_limits<To>::max() / 2 + 1) * From(2);
    if (value <= lowest) return std::numeric_limits<To>::min();
    if (value >= above_max) return std::numeric_limits<To>::max();
    return static_cast<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_ELEMENTWISE_SEMANTICS_H_
