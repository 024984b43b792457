#ifndef HMO_PLUGINS_SCHEDULER_TESTS_TEST_MODULES_H_
#define HMO_PLUGINS_SCHEDULER_TESTS_TEST_MODULES_H_

// HLO modules several scheduler tests use. Sizes: f32[42] = 168 bytes,
// f32[4] = 16, f32[2] = 8.

#include <string_view>

namespace hmo::scheduler::testing {

// ab and exp both read param; add is ab's last use.
inline constexpr std::string_view kLastUse = R"(
HloModule last_use

ENTRY entry {
  param = f32[42] parameter(0)
  ab = f32[42] abs(param)
  exp = f32[42] exponential(param)
  add = f32[42] add(ab, exp)
  negate = f32[42] negate(exp)
  ROOT sub = f32[42] subtract(add, negate)
}
)";

// XLA's documented list-scheduler weakness, made concrete: a (16 bytes) feeds
// b (16), d (8) and e (8); b => c (8); d, e => f (16) => h (8); c, h => g.
inline constexpr std::string_view kWeakness = R"(
HloModule list_weakness

ENTRY entry {
  a = f32[4] iota(), iota_dimension=0
  b = f32[4] reverse(a), dimensions={0}
  c = f32[2] slice(b), slice={[0:2]}
  d = f32[2] slice(a), slice={[0:2]}
  e = f32[2] slice(a), slice={[2:4]}
  f = f32[4] concatenate(d, e), dimensions={0}
  h = f32[2] slice(f), slice={[0:2]}
  ROOT g = f32[2] add(c, h)
}
)";

// The list-scheduler weakness with g's operands swapped, so that post order
// also runs the d/e/f branch first: all three of XLA's strategies peak at 48
// bytes; running b and c early peaks at 40.
inline constexpr std::string_view kAllXlaStrategiesMiss = R"(
HloModule all_miss

ENTRY entry {
  a = f32[4] iota(), iota_dimension=0
  b = f32[4] reverse(a), dimensions={0}
  c = f32[2] slice(b), slice={[0:2]}
  d = f32[2] slice(a), slice={[0:2]}
  e = f32[2] slice(a), slice={[2:4]}
  f = f32[4] concatenate(d, e), dimensions={0}
  h = f32[2] slice(f), slice={[0:2]}
  ROOT g = f32[2] add(h, c)
}
)";

}  // namespace hmo::scheduler::testing

#endif  // HMO_PLUGINS_SCHEDULER_TESTS_TEST_MODULES_H_
