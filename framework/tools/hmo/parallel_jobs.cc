#include "parallel_jobs.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "fmt/format.h"

namespace hmo::cli {

absl::StatusOr<size_t> ParseJobCount(std::string_view text) {
  if (text.empty()) return std::max(1u, std::thread::hardware_concurrency());
  int jobs = 0;
  if (!absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &jobs) || jobs < 1) {
    return absl::InvalidArgumentError(
        fmt::format("-j needs a positive number, got '{}'", std::string(text)));
  }
  return static_cast<size_t>(jobs);
}

void RunJobsInParallel(size_t count, size_t threads, const std::function<void(size_t)>& job,
                       ProgressSink* progress) {
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;  // guarded by progress_mutex
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      job(i);
      if (progress != nullptr) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress->Update("modules", static_cast<int64_t>(++done), static_cast<int64_t>(count), "");
      }
    }
  };
  const size_t helpers = std::min(std::max<size_t>(threads, 1), count) - (count > 0 ? 1 : 0);
  std::vector<std::thread> pool;
  for (size_t i = 0; i < helpers; ++i) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (progress != nullptr) progress->Done();
}

}  // namespace hmo::cli
