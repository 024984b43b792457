#ifndef HMO_SRC_ANALYSIS_ANALYSIS_CHECK_H_
#define HMO_SRC_ANALYSIS_ANALYSIS_CHECK_H_

// HMO_CHECK(condition) << "message": aborts with the message when a
// programming error (a broken invariant, never bad user input) is detected in
// the memory analyses. absl 20220623 has no absl/log, so the analyses carry
// this small private macro instead of XLA's CHECK.

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace hmo::analysis_internal {

class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition) {
    stream_ << file << ":" << line << ": check failed: " << condition << " ";
  }
  ~CheckFailure() {
    std::cerr << stream_.str() << std::endl;
    std::abort();
  }
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

}  // namespace hmo::analysis_internal

#define HMO_CHECK(condition)                                                      \
  if (condition) {                                                                \
  } else                                                                          \
    ::hmo::analysis_internal::CheckFailure(__FILE__, __LINE__, #condition).stream()

#define HMO_CHECK_EQ(a, b) HMO_CHECK((a) == (b))
#define HMO_CHECK_LE(a, b) HMO_CHECK((a) <= (b))

#endif  // HMO_SRC_ANALYSIS_ANALYSIS_CHECK_H_
