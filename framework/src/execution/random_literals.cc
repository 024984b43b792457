#include "hmo/execution/random_literals.h"

#include <algorithm>
#include <cmath>

#include "float_digits.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {
namespace {

// The splitmix64 output function: a bijective 64-bit mixer.
uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// A float uniform in [-1, 1) on the grid of multiples of 2^-(digits-1):
// (r - 2^(digits-1)) * 2^-(digits-1) for r uniform in [0, 2^digits). Every
// such value has at most digits-1 significant bits, so it is exact in the
// type.
double RandomUnitFloat(SplitMix64& rng, int digits) {
  const uint64_t r = rng.Next() >> (64 - digits);
  const int64_t centered = static_cast<int64_t>(r) - (int64_t{1} << (digits - 1));
  return std::ldexp(static_cast<double>(centered), -(digits - 1));
}

void FillArray(Literal& literal, SplitMix64& rng) {
  const PrimitiveType type = literal.element_type();
  const int64_t count = literal.element_count();
  if (type == PrimitiveType::PRED) {
    for (int64_t i = 0; i < count; ++i) literal.SetFromInt64(i, static_cast<int64_t>(rng.Next() >> 63));
    return;
  }
  if (type == PrimitiveType::F8E8M0FNU) {
    for (int64_t i = 0; i < count; ++i) {
      literal.SetFromDouble(i, std::ldexp(1.0, -static_cast<int>(rng.Next() % 3)));
    }
    return;
  }
  if (IsComplex(type)) {
    const int digits = execution_internal::SignificandDigits(primitive_util::ComplexComponentType(type));
    for (int64_t i = 0; i < count; ++i) {
      const double re = RandomUnitFloat(rng, digits);
      const double im = RandomUnitFloat(rng, digits);
      literal.SetFromComplex(i, {re, im});
    }
    return;
  }
  if (type == PrimitiveType::F32) {
    // The common case for real models (arguments of a GiB and more): store
    // directly rather than through Literal's per-element type switch. The
    // values are the same as the general path's.
    float* out = reinterpret_cast<float*>(literal.mutable_raw_data()->data());
    for (int64_t i = 0; i < count; ++i) out[i] = static_cast<float>(RandomUnitFloat(rng, 24));
    return;
  }
  if (IsFloatingPoint(type)) {
    const int digits = execution_internal::SignificandDigits(type);
    for (int64_t i = 0; i < count; ++i) literal.SetFromDouble(i, RandomUnitFloat(rng, digits));
    return;
  }
  if (IsInteger(type)) {
    const int bits = BitWidth(type);
    const int value_bits = primitive_util::IsSignedIntegralType(type) ? bits - 1 : bits;
    const uint64_t max = value_bits >= 4 ? 15 : (uint64_t{1} << value_bits) - 1;
    for (int64_t i = 0; i < count; ++i) {
      literal.SetFromInt64(i, static_cast<int64_t>(rng.Next() % (max + 1)));
    }
  }
}

}  // namespace

uint64_t SplitMix64::Next() {
  state_ += kGoldenGamma;
  return Mix64(state_);
}

uint64_t DeriveSeed(uint64_t seed, uint64_t salt) {
  return Mix64(Mix64(seed + kGoldenGamma) + salt * 0xD6E8FEB86659FD93ull + 1);
}

uint64_t DeriveSeed(uint64_t seed, std::string_view salt) {
  uint64_t hash = 0xCBF29CE484222325ull;  // FNV-1a offset basis
  for (char c : salt) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001B3ull;  // FNV-1a prime
  }
  return DeriveSeed(seed, hash);
}

Literal MakeRandomLiteral(const Shape& shape, uint64_t seed) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    elements.reserve(shape.tuple_shapes_size());
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      elements.push_back(MakeRandomLiteral(shape.tuple_shapes(i), DeriveSeed(seed, static_cast<uint64_t>(i))));
    }
    Literal tuple = Literal::MakeTuple(std::move(elements));
    return tuple;
  }
  Literal literal(shape);
  if (!shape.IsArray()) return literal;
  SplitMix64 rng(seed);
  FillArray(literal, rng);
  return literal;
}

std::vector<Literal> MakeRandomArguments(const HloModule& module, uint64_t seed) {
  std::vector<Literal> arguments;
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return arguments;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    arguments.push_back(
        MakeRandomLiteral(entry->parameter_instruction(i)->shape(), DeriveSeed(seed, static_cast<uint64_t>(i))));
  }
  return arguments;
}

}  // namespace hmo
