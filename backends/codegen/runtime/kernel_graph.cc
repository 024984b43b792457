// __hmo_cpu_run_kernel_graph: a computation's independent kernels at the same
// time, as XLA:CPU's thunk executor runs independent thunks.
//
// The calling thread runs ready nodes until every node returned; pool
// helpers run ready nodes that may leave the calling thread while there are
// any and then leave their thread (a helper never waits, so the pool stays
// free for the parts of the kernels only the calling thread starts: their
// parts then run on the pool, where a helper would run them alone).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "hmo/codegen/runtime/intra_op_threads.h"
#include "hmo/codegen/runtime/runtime_functions.h"

namespace hmo::codegen {
namespace {

class KernelGraphRun : public std::enable_shared_from_this<KernelGraphRun> {
 public:
  KernelGraphRun(const HmoCpuKernelNode* nodes, int64_t count, const int64_t* successors,
                 char** buffer_table)
      : nodes_(nodes),
        successors_(successors),
        table_(buffer_table),
        pending_(static_cast<size_t>(count)),
        remaining_(count) {
    for (int64_t i = 0; i < count; ++i) {
      pending_[i].store(nodes[i].predecessors, std::memory_order_relaxed);
      if (nodes[i].predecessors == 0) Queue(i).push_back(i);
    }
  }

  // The calling thread's part: returns when every node has returned.
  void RunOnCaller() {
    OfferHelpers();
    std::unique_lock<std::mutex> lock(mutex_);
    while (remaining_ > 0) {
      int64_t node = -1;
      if (!on_caller_.empty()) {
        node = on_caller_.front();
        on_caller_.pop_front();
      } else if (!anywhere_.empty()) {
        node = anywhere_.front();
        anywhere_.pop_front();
      } else {
        node_finished_.wait(lock);
        continue;
      }
      lock.unlock();
      Run(node);
      lock.lock();
    }
  }

 private:
  std::deque<int64_t>& Queue(int64_t node) {
    return nodes_[node].on_calling_thread != 0 ? on_caller_ : anywhere_;
  }

  // Queues helpers for the unpartitioned nodes ready and not yet claimed.
  void OfferHelpers() {
    int wanted = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      wanted = static_cast<int>(anywhere_.size()) - helpers_;
      if (wanted <= 0) return;
      helpers_ += wanted;
    }
    std::shared_ptr<KernelGraphRun> self = shared_from_this();
    const int queued = ScheduleOnIntraOpPool(wanted, [self] { self->RunOnHelper(); });
    if (queued < wanted) {
      std::lock_guard<std::mutex> lock(mutex_);
      helpers_ -= wanted - queued;
    }
  }

  void RunOnHelper() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!anywhere_.empty()) {
      const int64_t node = anywhere_.front();
      anywhere_.pop_front();
      lock.unlock();
      Run(node);
      lock.lock();
    }
    --helpers_;
  }

  // Runs `node`, then makes its successors whose last predecessor it was
  // ready.
  void Run(int64_t node) {
    const HmoCpuKernelNode& n = nodes_[node];
    if (n.parts > 1) {
      __hmo_cpu_parallel_for(reinterpret_cast<HmoCpuKernelPart>(n.kernel), table_, n.parts);
    } else {
      reinterpret_cast<void (*)(char**)>(n.kernel)(table_);
    }
    bool new_anywhere = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int64_t s = n.first_successor; s < n.first_successor + n.successor_count; ++s) {
        const int64_t successor = successors_[s];
        if (pending_[successor].fetch_sub(1, std::memory_order_acq_rel) == 1) {
          Queue(successor).push_back(successor);
          new_anywhere |= nodes_[successor].on_calling_thread == 0;
        }
      }
      --remaining_;
    }
    node_finished_.notify_all();
    if (new_anywhere) OfferHelpers();
  }

  const HmoCpuKernelNode* nodes_;
  const int64_t* successors_;
  char** table_;
  std::vector<std::atomic<int64_t>> pending_;
  std::mutex mutex_;
  std::condition_variable node_finished_;
  std::deque<int64_t> on_caller_;  // ready, run by the calling thread
  std::deque<int64_t> anywhere_;   // ready, run by any thread
  int64_t remaining_;
  int helpers_ = 0;  // queued or running helpers
};

}  // namespace
}  // namespace hmo::codegen

extern "C" void __hmo_cpu_run_kernel_graph(const HmoCpuKernelNode* nodes, int64_t count,
                                           const int64_t* successors, char** buffer_table) {
  if (count <= 0) return;
  auto run = std::make_shared<hmo::codegen::KernelGraphRun>(nodes, count, successors, buffer_table);
  run->RunOnCaller();
}
