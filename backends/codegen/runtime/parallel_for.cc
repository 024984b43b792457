// Partitioned kernels: the parts of one kernel run on the calling thread and
// an Eigen thread pool (Eigen's non-blocking pool is what XLA:CPU runs its
// intra-op parallel loops on).

#define EIGEN_USE_THREADS

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "hmo/codegen/runtime/intra_op_threads.h"
#include "hmo/codegen/runtime/runtime_functions.h"
#include "unsupported/Eigen/CXX11/ThreadPool"

// OpenBLAS's own thread count (set to 1: the pool runs the GEMM slices), when
// the BLAS is OpenBLAS; weak so that another CBLAS links too.
extern "C" void openblas_set_num_threads(int num_threads) __attribute__((weak));

namespace hmo::codegen {
namespace {

struct IntraOpPool {
  std::mutex mutex;
  int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  // threads - 1 workers: the calling thread runs a part too.
  std::unique_ptr<Eigen::ThreadPool> pool;
};

IntraOpPool& Pool() {
  static IntraOpPool* pool = [] {
    if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
    return new IntraOpPool();  // never destroyed: workers may outlive statics
  }();
  return *pool;
}

// The parts of one ForEachIntraOpPart call, run by whichever thread claims
// each first.
class PartClaims {
 public:
  PartClaims(int64_t parts, const std::function<void(int64_t, int64_t)>* body)
      : parts_(parts), body_(body) {}

  void RunClaimedParts() {
    int64_t finished = 0;
    for (int64_t part = next_.fetch_add(1); part < parts_; part = next_.fetch_add(1)) {
      (*body_)(part, parts_);
      ++finished;
    }
    if (finished == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ += finished;
    if (finished_ == parts_) all_finished_.notify_all();
  }

  void WaitForAllParts() {
    std::unique_lock<std::mutex> lock(mutex_);
    all_finished_.wait(lock, [this] { return finished_ == parts_; });
  }

 private:
  const int64_t parts_;
  // Valid until every part finished: the caller waits for that.
  const std::function<void(int64_t, int64_t)>* body_;
  std::atomic<int64_t> next_{0};
  std::mutex mutex_;
  std::condition_variable all_finished_;
  int64_t finished_ = 0;
};

}  // namespace

int IntraOpThreadCount() {
  IntraOpPool& pool = Pool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  return pool.threads;
}

void SetIntraOpThreadCount(int threads) {
  IntraOpPool& pool = Pool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  threads = std::max(1, threads);
  if (threads == pool.threads) return;
  pool.threads = threads;
  pool.pool.reset();
}

void ForEachIntraOpPart(int64_t max_parts,
                        const std::function<void(int64_t part, int64_t parts)>& body) {
  IntraOpPool& state = Pool();
  Eigen::ThreadPool* pool = nullptr;
  int64_t parts = 1;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    parts = std::min<int64_t>(max_parts, state.threads);
    if (parts > 1) {
      if (state.pool == nullptr)
        state.pool = std::make_unique<Eigen::ThreadPool>(state.threads - 1);
      pool = state.pool.get();
      // A part waiting for parts queued behind it on its own pool would
      // never return.
      if (pool->CurrentThreadId() != -1) parts = 1;
    }
  }
  if (parts <= 1) {
    body(0, 1);
    return;
  }
  // Parts are claimed, not assigned: the calling thread runs every part no
  // worker has started, so a kernel never waits for a worker that is busy
  // with another caller's parts (the devices of a replicated run share the
  // pool). A helper that starts after the last part was claimed only drops
  // its reference to the shared state.
  auto claims = std::make_shared<PartClaims>(parts, &body);
  for (int64_t p = 1; p < parts; ++p) pool->Schedule([claims] { claims->RunClaimedParts(); });
  claims->RunClaimedParts();
  claims->WaitForAllParts();
}

int ScheduleOnIntraOpPool(int max_tasks, const std::function<void()>& task) {
  IntraOpPool& state = Pool();
  Eigen::ThreadPool* pool = nullptr;
  int tasks = 0;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    tasks = std::min(max_tasks, state.threads - 1);
    if (tasks <= 0) return 0;
    if (state.pool == nullptr) state.pool = std::make_unique<Eigen::ThreadPool>(state.threads - 1);
    pool = state.pool.get();
    if (pool->CurrentThreadId() != -1) return 0;
  }
  for (int t = 0; t < tasks; ++t) pool->Schedule(task);
  return tasks;
}

}  // namespace hmo::codegen

extern "C" void __hmo_cpu_parallel_for(HmoCpuKernelPart part, char** buffer_table,
                                       int64_t max_parts) {
  hmo::codegen::ForEachIntraOpPart(
      max_parts, [part, buffer_table](int64_t p, int64_t parts) { part(buffer_table, p, parts); });
}
