#ifndef HMO_EXECUTION_LITERAL_COMPARISON_H_
#define HMO_EXECUTION_LITERAL_COMPARISON_H_

// Comparing an executed result against a reference result (the evaluator's),
// for `hmo run --check` and backend tests.
//
// Shapes must be equal ignoring layout (same tuple structure, element types
// and dimensions). Integers and pred must be bit-exact. Two floating-point
// elements a (actual) and e (expected) match when any of these holds:
//   - a == e (so +0 and -0 match), or both are NaN;
//   - both are finite and |a - e| <= absolute + relative * |e|
//     + relative_to_largest * (the largest finite |e| of that output): the
//     last term admits the reassociation error of long sums (a dot or a
//     convolution over 10^5 terms) on results that cancel to near zero;
//   - both are finite and at most max_ulps representable values of the
//     element type lie between them (distance in units in the last place).
// An infinity matches only the same infinity. Complex elements compare their
// real and imaginary parts separately with the component type's tolerance.
//
// Default tolerances (DefaultFloatTolerance), loose enough for reassociated
// sums and fused multiply-adds, tight enough to catch a wrong element:
//                  relative  absolute  to largest  ULP
//   f64            1e-9      1e-12     1e-12       8
//   f32 (and c64)  1e-5      1e-6      1e-5        8
//   f16            1e-2      1e-3      1e-3        4
//   bf16           2e-2      1e-2      1e-2        4
//   f8 / f4 types  0.25      0.125     0           2

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "hmo/ir/literal.h"

namespace hmo {

struct FloatTolerance {
  double relative = 0;
  double absolute = 0;
  int64_t max_ulps = 0;
  double relative_to_largest = 0;
};

// The default tolerance for a float (or complex: its component) type.
FloatTolerance DefaultFloatTolerance(PrimitiveType type);

struct LiteralComparisonOptions {
  // Used for every float type when set; else DefaultFloatTolerance.
  std::optional<FloatTolerance> float_tolerance;
};

// What a comparison saw, filled even when it fails.
struct LiteralComparisonSummary {
  // Array leaves compared (1 for an array result, one per leaf of a tuple).
  int64_t outputs = 0;
  int64_t elements = 0;
  // Largest |actual - expected| over float elements that are not both NaN
  // or equal infinities; 0 when there are none.
  double max_abs_diff = 0;
};

// Returns OK when `actual` matches `expected` as described above. Otherwise
// InvalidArgument naming the first differing output by its tuple index
// ("output {1}"), its shape, the first differing element's multi-index, both
// values, and how many elements of that output differ; or naming the first
// shape difference. `summary` may be null.
absl::Status CompareLiterals(const Literal& expected, const Literal& actual,
                             const LiteralComparisonOptions& options = {},
                             LiteralComparisonSummary* summary = nullptr);

// The distance in units in the last place between two finite values of the
// float type `type` (each exactly representable in it): how many
// representable values one must step through to get from one to the other.
// +0 and -0 are 0 apart.
int64_t UlpDistance(PrimitiveType type, double a, double b);

}  // namespace hmo

#endif  // HMO_EXECUTION_LITERAL_COMPARISON_H_
