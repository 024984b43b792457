#ifndef HMO_TOOLS_HMO_ATOMIC_FILE_H_
#define HMO_TOOLS_HMO_ATOMIC_FILE_H_

// Writing an output file so that readers see the old file or the complete new
// one, never a partial one, and a failure leaves nothing behind.

#include <filesystem>
#include <string_view>

#include "absl/status/status.h"

namespace hmo::cli {

// Writes `contents` to a temporary file beside `path`, flushes it, and
// renames it over `path`. On failure removes the temporary file and returns
// an error naming `path`.
absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_ATOMIC_FILE_H_
