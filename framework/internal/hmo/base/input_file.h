#ifndef HMO_BASE_INPUT_FILE_H_
#define HMO_BASE_INPUT_FILE_H_

// Reading an input file (HLO text, a pipeline, a CSV, an .npy array) whole,
// safely: only a regular file is read (a character device such as /dev/zero
// or /dev/urandom, a FIFO or a directory would never end or be no input),
// and only up to a size limit, checked before reading.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hmo {

// The largest input file read whole: 4 GiB.
inline constexpr int64_t kMaxInputFileBytes = int64_t{4} << 30;

// The contents of `path`. NotFound if it does not exist or cannot be opened;
// InvalidArgument (naming the path and why) if it is not a regular file or
// is larger than `max_bytes`; DataLoss on a read error.
absl::StatusOr<std::string> ReadInputFile(std::string_view path,
                                          int64_t max_bytes = kMaxInputFileBytes);

}  // namespace hmo

#endif  // HMO_BASE_INPUT_FILE_H_
