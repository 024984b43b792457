#include "core/bfs_scheduler.h"

#include <cstddef>

namespace hmo::scheduler {

std::vector<int> BfsSchedule(const SchedulingGraph& graph) {
  const int n = graph.instruction_count();
  std::vector<int> pending(n, 0);
  std::vector<int> queue;  // FIFO: popped from `head`
  queue.reserve(n);
  for (int i = 0; i < n; ++i) {
    const SchedulingInstruction& in = graph.instruction(i);
    pending[i] = static_cast<int>(in.unique_operands.size() + in.control_predecessors.size());
    if (pending[i] == 0) queue.push_back(i);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const SchedulingInstruction& in = graph.instruction(queue[head]);
    for (int u : in.users) {
      if (--pending[u] == 0) queue.push_back(u);
    }
    for (int s : in.control_successors) {
      if (--pending[s] == 0) queue.push_back(s);
    }
  }
  return queue;
}

}  // namespace hmo::scheduler
