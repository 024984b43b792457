#ifndef HMO_BASE_HALF_FLOAT_BITS_H_
#define HMO_BASE_HALF_FLOAT_BITS_H_

// f32 <-> f16 / bf16 by bit manipulation, rounding to nearest even, NaNs kept
// quiet: the one definition the evaluator and the code the backends generate
// (their runtime's conversion functions) share. Header-only and free of other
// hmo dependencies, so the backends' runtime library can use it without
// linking the framework; it needs neither F16C nor the compiler's _Float16.

#include <bit>
#include <cstdint>

namespace hmo::half_float_bits {

namespace internal {

inline constexpr uint32_t kF32ExponentMask = 0x7f800000u;
inline constexpr uint32_t kF32MantissaMask = 0x007fffffu;
// 65520.0f: the first f32 that rounds (ties to even) past the largest finite
// half, 65504, so it and everything above become infinity.
inline constexpr uint32_t kF32HalfOverflow = 0x477ff000u;
// 2^-14, the smallest normal half.
inline constexpr uint32_t kF32SmallestNormalHalf = 0x38800000u;

// Rounds `value >> shift` to nearest, ties to even (1 <= shift <= 31).
constexpr uint32_t ShiftRightRoundingToEven(uint32_t value, int shift) {
  const uint32_t kept = value >> shift;
  const uint32_t dropped = value & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  return (dropped > half || (dropped == half && (kept & 1u))) ? kept + 1u : kept;
}

}  // namespace internal

inline float F16ToF32(uint16_t value) {
  using internal::kF32ExponentMask;
  const uint32_t sign = static_cast<uint32_t>(value & 0x8000u) << 16;
  const uint32_t exponent = (value >> 10) & 0x1fu;
  const uint32_t mantissa = value & 0x3ffu;
  if (exponent == 0x1f) {  // Infinity or NaN: keep the payload.
    return std::bit_cast<float>(sign | kF32ExponentMask | (mantissa << 13));
  }
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in f32.
    const float magnitude = static_cast<float>(mantissa) * std::bit_cast<float>(0x33800000u);
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
  }
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

inline uint16_t F32ToF16(float value) {
  using namespace internal;
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > kF32ExponentMask) {  // NaN: quiet, keep the top payload bits.
    return sign | 0x7e00u | static_cast<uint16_t>((magnitude >> 13) & 0x3ffu);
  }
  if (magnitude >= kF32HalfOverflow) return sign | 0x7c00u;  // Infinity (or overflow).
  if (magnitude < kF32SmallestNormalHalf) {
    // Half subnormal (or zero): the result is round(value * 2^24). With the
    // implicit bit, value = significand * 2^(e - 150), so the half mantissa is
    // significand >> (126 - e). Rounding up from the largest subnormal yields
    // 0x400, which is exactly the encoding of the smallest normal.
    const uint32_t exponent = magnitude >> 23;
    if (exponent == 0) return sign;  // f32 subnormals are far below half's range.
    const int shift = 126 - static_cast<int>(exponent);
    if (shift > 24) return sign;  // Below half the smallest subnormal.
    const uint32_t significand = (magnitude & kF32MantissaMask) | 0x800000u;
    return sign | static_cast<uint16_t>(ShiftRightRoundingToEven(significand, shift));
  }
  // Normal: rebias the exponent and round the mantissa; a carry out of the
  // mantissa correctly bumps the exponent.
  const uint32_t rebiased = magnitude - ((127u - 15u) << 23);
  return sign | static_cast<uint16_t>(ShiftRightRoundingToEven(rebiased, 13));
}

// bf16 is the top half of an f32.
inline float Bf16ToF32(uint16_t value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value) << 16);
}

inline uint16_t F32ToBf16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > internal::kF32ExponentMask) {
    return static_cast<uint16_t>((bits >> 16) | 0x40u);  // NaN stays a quiet NaN.
  }
  return static_cast<uint16_t>(internal::ShiftRightRoundingToEven(bits, 16));
}

}  // namespace hmo::half_float_bits

#endif  // HMO_BASE_HALF_FLOAT_BITS_H_
