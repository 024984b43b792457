#ifndef HMO_TOOLS_HMO_PARALLEL_JOBS_H_
#define HMO_TOOLS_HMO_PARALLEL_JOBS_H_

// Runs independent jobs on a pool of threads, with an optional progress line.

#include <cstddef>
#include <functional>
#include <string_view>

#include "absl/status/statusor.h"

namespace hmo::cli {

// Calls `job(i)` for every i in [0, count) on up to `threads` threads (at
// least one; the calling thread works too) and returns when all are done.
// Jobs must not throw. When `show_progress` is set, keeps a
// "[done/count] modules" line updated on stderr and erases it at the end.
// The value of a -j/--jobs option: a positive integer, or every core when
// `text` is empty. InvalidArgument otherwise.
absl::StatusOr<size_t> ParseJobCount(std::string_view text);

void RunJobsInParallel(size_t count, size_t threads, const std::function<void(size_t)>& job,
                       bool show_progress);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_PARALLEL_JOBS_H_
