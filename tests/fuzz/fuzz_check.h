#ifndef HMO_TESTS_FUZZ_FUZZ_CHECK_H_
#define HMO_TESTS_FUZZ_FUZZ_CHECK_H_

// A property a fuzz target asserts about hmo (not about its input): when it
// fails, the target aborts so that libFuzzer, or the regression runner,
// reports the input.

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace hmo::fuzz {

inline void FuzzCheck(bool holds, std::string_view what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property violated: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

}  // namespace hmo::fuzz

#endif  // HMO_TESTS_FUZZ_FUZZ_CHECK_H_
