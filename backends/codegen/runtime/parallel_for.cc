// Partitioned kernels: the parts of one kernel run on the calling thread and
// an Eigen thread pool (Eigen's non-blocking pool is what XLA:CPU runs its
// intra-op parallel loops on).

#define EIGEN_USE_THREADS

#include <algorithm>
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
  Eigen::Barrier done(static_cast<unsigned int>(parts - 1));
  for (int64_t p = 1; p < parts; ++p) {
    pool->Schedule([&body, p, parts, &done] {
      body(p, parts);
      done.Notify();
    });
  }
  body(0, parts);
  done.Wait();
}

}  // namespace hmo::codegen

extern "C" void __hmo_cpu_parallel_for(HmoCpuKernelPart part, char** buffer_table,
                                       int64_t max_parts) {
  hmo::codegen::ForEachIntraOpPart(
      max_parts, [part, buffer_table](int64_t p, int64_t parts) { part(buffer_table, p, parts); });
}
