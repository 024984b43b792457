#ifndef HMO_EVAL_ELEMENTWISE_APPLY_H_
#define HMO_EVAL_ELEMENTWISE_APPLY_H_

// One elementwise opcode applied to native values (see
// elementwise_semantics.h for the meaning of each). Shared by the elementwise
// handlers and by the fast paths of reduce, reduce-window and scatter, whose
// reducers are often a single binary opcode.

#include <bit>
#include <cmath>
#include <type_traits>

#include "elementwise_semantics.h"
#include "hmo/ir/hlo_opcode.h"

namespace hmo::eval_internal {

// Sets *out to op(x) and returns true, or returns false when `op` is not a
// unary elementwise opcode defined on T (is-finite, returning pred, is
// handled by the caller).
template <typename T>
bool ApplyUnaryOp(HloOpcode op, T x, T* out) {
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case HloOpcode::kAbs: *out = std::fabs(x); return true;
      case HloOpcode::kNegate: *out = -x; return true;
      case HloOpcode::kExp: *out = std::exp(x); return true;
      case HloOpcode::kExpm1: *out = std::expm1(x); return true;
      case HloOpcode::kLog: *out = std::log(x); return true;
      case HloOpcode::kLog1p: *out = std::log1p(x); return true;
      case HloOpcode::kLogistic: *out = Logistic(x); return true;
      case HloOpcode::kSqrt: *out = std::sqrt(x); return true;
      case HloOpcode::kRsqrt: *out = T(1) / std::sqrt(x); return true;
      case HloOpcode::kCbrt: *out = std::cbrt(x); return true;
      case HloOpcode::kTanh: *out = std::tanh(x); return true;
      case HloOpcode::kSin: *out = std::sin(x); return true;
      case HloOpcode::kCos: *out = std::cos(x); return true;
      case HloOpcode::kTan: *out = std::tan(x); return true;
      case HloOpcode::kAcos: *out = std::acos(x); return true;
      case HloOpcode::kAcosh: *out = std::acosh(x); return true;
      case HloOpcode::kAsin: *out = std::asin(x); return true;
      case HloOpcode::kAsinh: *out = std::asinh(x); return true;
      case HloOpcode::kAtan: *out = std::atan(x); return true;
      case HloOpcode::kAtanh: *out = std::atanh(x); return true;
      case HloOpcode::kCosh: *out = std::cosh(x); return true;
      case HloOpcode::kSinh: *out = std::sinh(x); return true;
      case HloOpcode::kErf: *out = std::erf(x); return true;
      case HloOpcode::kFloor: *out = std::floor(x); return true;
      case HloOpcode::kCeil: *out = std::ceil(x); return true;
      case HloOpcode::kRoundNearestAfz: *out = std::round(x); return true;
      case HloOpcode::kRoundNearestEven: *out = RoundNearestEven(x); return true;
      case HloOpcode::kSign: *out = FloatSign(x); return true;
      case HloOpcode::kReal: *out = x; return true;
      case HloOpcode::kImag: *out = T(0); return true;
      default: return false;
    }
  } else if constexpr (kIsBool<T>) {
    switch (op) {
      case HloOpcode::kNot: *out = !x; return true;
      default: return false;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case HloOpcode::kAbs:
        *out = (std::is_signed_v<T> && x < 0) ? WrappingSub(T(0), x) : x;
        return true;
      case HloOpcode::kNegate: *out = WrappingSub(T(0), x); return true;
      case HloOpcode::kSign:
        if constexpr (std::is_signed_v<T>) {
          *out = x > 0 ? T(1) : (x < 0 ? T(-1) : T(0));
        } else {
          *out = x > 0 ? T(1) : T(0);
        }
        return true;
      case HloOpcode::kNot: *out = static_cast<T>(~static_cast<U>(x)); return true;
      case HloOpcode::kPopulationCount: *out = static_cast<T>(std::popcount(static_cast<U>(x))); return true;
      case HloOpcode::kClz: *out = static_cast<T>(std::countl_zero(static_cast<U>(x))); return true;
      default: return false;
    }
  }
}

// Sets *out to op(a, b) and returns true, or returns false when `op` is not a
// binary elementwise opcode defined on T.
template <typename T>
bool ApplyBinaryOp(HloOpcode op, T a, T b, T* out) {
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case HloOpcode::kAdd: *out = a + b; return true;
      case HloOpcode::kSubtract: *out = a - b; return true;
      case HloOpcode::kMultiply: *out = a * b; return true;
      case HloOpcode::kDivide: *out = a / b; return true;
      case HloOpcode::kRemainder: *out = std::fmod(a, b); return true;
      case HloOpcode::kPower: *out = std::pow(a, b); return true;
      case HloOpcode::kMaximum: *out = FloatMaximum(a, b); return true;
      case HloOpcode::kMinimum: *out = FloatMinimum(a, b); return true;
      case HloOpcode::kAtan2: *out = std::atan2(a, b); return true;
      default: return false;
    }
  } else if constexpr (kIsBool<T>) {
    switch (op) {
      case HloOpcode::kAnd:
      case HloOpcode::kMinimum: *out = a && b; return true;
      case HloOpcode::kOr:
      case HloOpcode::kMaximum: *out = a || b; return true;
      case HloOpcode::kXor: *out = a != b; return true;
      default: return false;
    }
  } else {
    switch (op) {
      case HloOpcode::kAdd: *out = WrappingAdd(a, b); return true;
      case HloOpcode::kSubtract: *out = WrappingSub(a, b); return true;
      case HloOpcode::kMultiply: *out = WrappingMul(a, b); return true;
      case HloOpcode::kDivide: *out = IntegerDivide(a, b); return true;
      case HloOpcode::kRemainder: *out = IntegerRemainder(a, b); return true;
      case HloOpcode::kPower: *out = IntegerPower(a, b); return true;
      case HloOpcode::kMaximum: *out = a > b ? a : b; return true;
      case HloOpcode::kMinimum: *out = a < b ? a : b; return true;
      case HloOpcode::kAnd: *out = static_cast<T>(a & b); return true;
      case HloOpcode::kOr: *out = static_cast<T>(a | b); return true;
      case HloOpcode::kXor: *out = static_cast<T>(a ^ b); return true;
      case HloOpcode::kShiftLeft: *out = ShiftLeft(a, b); return true;
      case HloOpcode::kShiftRightLogical: *out = ShiftRightLogical(a, b); return true;
      case HloOpcode::kShiftRightArithmetic: *out = ShiftRightArithmetic(a, b); return true;
      default: return false;
    }
  }
}

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_ELEMENTWISE_APPLY_H_
