#ifndef HMO_TOOLS_HMO_PARALLEL_JOBS_H_
#define HMO_TOOLS_HMO_PARALLEL_JOBS_H_

// Runs independent jobs on a pool of threads, reporting how many are done.

#include <cstddef>
#include <functional>
#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/base/progress_sink.h"

namespace hmo::cli {

// The value of a -j/--jobs option: a positive integer, or every core when
// `text` is empty. InvalidArgument otherwise.
absl::StatusOr<size_t> ParseJobCount(std::string_view text);

// Calls `job(i)` for every i in [0, count) on up to `threads` threads (at
// least one; the calling thread works too) and returns when all are done.
// Jobs must not throw. With `progress`, reports "modules" done/count as
// jobs finish, and Done at the end.
void RunJobsInParallel(size_t count, size_t threads, const std::function<void(size_t)>& job,
                       ProgressSink* progress);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_PARALLEL_JOBS_H_
