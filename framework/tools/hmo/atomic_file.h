#ifndef HMO_TOOLS_HMO_ATOMIC_FILE_H_
#define HMO_TOOLS_HMO_ATOMIC_FILE_H_

// Writing an output file so that readers see the old file or the complete new
// one, never a partial one, and a failure leaves nothing behind: neither an
// error nor SIGINT, SIGTERM or SIGHUP during the write.

#include <filesystem>
#include <string_view>

#include "absl/status/status.h"

namespace hmo::cli {

// Writes `contents` to a temporary file beside `path`, flushes it, and
// renames it over `path`. On failure removes the temporary file and returns
// an error naming `path`. While the temporary file exists, SIGINT, SIGTERM
// and SIGHUP remove it before the process ends by the signal.
absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents);

// A file the process removes if SIGINT, SIGTERM or SIGHUP ends it while this
// object lives (the first one installs handlers that do so and then end the
// process by the same signal, as the default action would). Up to
// kMaxPendingTemporaryFiles at once; beyond that a file is not tracked.
class PendingTemporaryFile {
 public:
  static constexpr int kMaxPendingTemporaryFiles = 64;

  explicit PendingTemporaryFile(const std::filesystem::path& path);
  ~PendingTemporaryFile();
  PendingTemporaryFile(const PendingTemporaryFile&) = delete;
  PendingTemporaryFile& operator=(const PendingTemporaryFile&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_ATOMIC_FILE_H_
