#include "parallel_jobs.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "fmt/format.h"

namespace hmo::cli {

void RunJobsInParallel(size_t count, size_t threads, const std::function<void(size_t)>& job,
                       bool show_progress) {
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;  // guarded by progress_mutex
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      job(i);
      if (show_progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        fmt::print(stderr, "\r[{}/{}] modules", ++done, count);
        std::fflush(stderr);
      }
    }
  };
  const size_t helpers = std::min(std::max<size_t>(threads, 1), count) - (count > 0 ? 1 : 0);
  std::vector<std::thread> pool;
  for (size_t i = 0; i < helpers; ++i) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (show_progress) {
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
  }
}

}  // namespace hmo::cli
