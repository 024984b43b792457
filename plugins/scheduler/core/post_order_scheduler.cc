#include "core/post_order_scheduler.h"

#include <cstdint>

namespace hmo::scheduler {

std::vector<int> PostOrderSchedule(const SchedulingGraph& graph) {
  enum : uint8_t { kNew, kVisiting, kVisited };
  const int n = graph.instruction_count();
  std::vector<uint8_t> state(n, kNew);
  std::vector<int> post_order;
  post_order.reserve(n);
  std::vector<int> stack;
  for (int start = 0; start < n; ++start) {
    if (!graph.instruction(start).users.empty() || state[start] != kNew) continue;
    stack.push_back(start);
    while (!stack.empty()) {
      int current = stack.back();
      if (state[current] != kNew) {
        stack.pop_back();
        if (state[current] == kVisiting) {
          state[current] = kVisited;
          post_order.push_back(current);
        }
        continue;
      }
      state[current] = kVisiting;
      // A stack: operands pushed last-first so the first operand is visited
      // first, and control predecessors on top of them, visited before.
      const SchedulingInstruction& in = graph.instruction(current);
      for (auto it = in.operands.rbegin(); it != in.operands.rend(); ++it) {
        if (state[*it] == kNew) stack.push_back(*it);
      }
      for (int p : in.control_predecessors) {
        if (state[p] == kNew) stack.push_back(p);
      }
    }
  }
  return post_order;
}

}  // namespace hmo::scheduler
