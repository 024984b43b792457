#ifndef HMO_SRC_EXECUTION_NPY_HEADER_H_
#define HMO_SRC_EXECUTION_NPY_HEADER_H_

// The header dict of a .npy file, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }  # hmo: ...
// parsed and printed. Only the Python literal subset numpy writes is read:
// a dict with string keys whose values are strings, True/False and tuples of
// integers, optionally followed by a comment.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hmo::npy_internal {

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
  // The text of a trailing "# ..." comment without the '#', trimmed; empty
  // when there is none.
  std::string comment;
};

// Parses the header text (after the length field). Errors say what is
// malformed, without naming the file (the caller adds that).
absl::StatusOr<NpyHeader> ParseNpyHeader(std::string_view text);

// The dict text numpy would write, followed by "  # comment" when the comment
// is not empty; no padding, no newline.
std::string FormatNpyHeader(const NpyHeader& header);

}  // namespace hmo::npy_internal

#endif  // HMO_SRC_EXECUTION_NPY_HEADER_H_
