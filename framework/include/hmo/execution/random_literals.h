#ifndef HMO_EXECUTION_RANDOM_LITERALS_H_
#define HMO_EXECUTION_RANDOM_LITERALS_H_

// Deterministic pseudo-random values for running modules without real data:
// the arguments of `hmo run --execute` and the constants a dump elided
// (`constant({...})`). The same seed gives the same bytes on every run and
// every machine: the generator is splitmix64 (no std:: distributions, whose
// output is implementation-defined), and values are made with integer
// arithmetic and exact power-of-two scaling only.
//
// Values per element type:
//   floating point  uniform in [-1, 1), quantized to multiples of 2^-(p-1)
//                   where p is the type's significand digits (f32 2^-23,
//                   f64 2^-52, f16 2^-10, bf16 2^-7, f8e4m3* 2^-3, ...), so
//                   every value is exactly representable; f8e8m0fnu (powers
//                   of two only) gets 2^-2, 2^-1 or 1.
//   complex         real and imaginary parts each as their float type.
//   integers        uniform in [0, 16), or [0, max] for types whose maximum
//                   is smaller (s2: [0, 1], u2: [0, 3], s4: [0, 7]): small
//                   and non-negative so that sums do not overflow and
//                   values used as indices mostly stay in bounds.
//   pred            0 or 1 with equal probability.
//   tuples          each element from its own seed derived from the parent
//                   seed and the element index, recursively.
//   token, opaque   the zero literal (there is nothing to fill).

#include <cstdint>
#include <string_view>
#include <vector>

#include "hmo/ir/literal.h"
#include "hmo/ir/shape.h"

namespace hmo {

class HloModule;

// splitmix64 (Steele, Lea, Flood 2014): a 64-bit state advanced by a
// constant and mixed; small, fast and fully specified.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();

 private:
  uint64_t state_;
};

// A seed for a sub-stream: mixes `seed` with `salt` (e.g. a parameter
// number) so that sub-streams of one seed are unrelated.
uint64_t DeriveSeed(uint64_t seed, uint64_t salt);
// The same with a string salt (e.g. an instruction name), hashed with FNV-1a.
uint64_t DeriveSeed(uint64_t seed, std::string_view salt);

// A literal of `shape` (layout kept, values row-major) filled as described
// above from `seed`.
Literal MakeRandomLiteral(const Shape& shape, uint64_t seed);

// One literal per entry parameter of `module`: parameter i gets
// MakeRandomLiteral(its shape, DeriveSeed(seed, i)).
std::vector<Literal> MakeRandomArguments(const HloModule& module, uint64_t seed);

// Gives every elided constant (`constant({...})`) of every computation of
// `module` values: MakeRandomLiteral(its shape, DeriveSeed(seed, its name)),
// so a constant's values depend only on the seed and its name, not on the
// order of instructions or on other constants. Returns how many constants it
// filled.
int64_t FillElidedConstants(HloModule& module, uint64_t seed);

}  // namespace hmo

#endif  // HMO_EXECUTION_RANDOM_LITERALS_H_
