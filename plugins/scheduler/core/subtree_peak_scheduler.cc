#include "core/subtree_peak_scheduler.h"

#include <algorithm>
#include <cstdint>

#include "core/post_order_scheduler.h"

namespace hmo::scheduler {
namespace {

// The instructions that must run before `i`: distinct operands, then control
// predecessors not already among them.
std::vector<int> Predecessors(const SchedulingGraph& graph, int i) {
  const SchedulingInstruction& in = graph.instruction(i);
  std::vector<int> out = in.unique_operands;
  for (int p : in.control_predecessors) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

}  // namespace

std::vector<int> SubtreePeakSchedule(const MemoryModel& model) {
  const SchedulingGraph& graph = model.graph();
  const int n = graph.instruction_count();
  std::vector<int64_t> peak(n, 0), result(n, 0);
  std::vector<std::vector<int>> visit_order(n);
  for (int v : PostOrderSchedule(graph)) {
    std::vector<int> children = Predecessors(graph, v);
    std::stable_sort(children.begin(), children.end(), [&](int a, int b) {
      return peak[a] - result[a] > peak[b] - result[b];
    });
    int64_t held = 0, p = 0;
    for (int c : children) {
      p = std::max(p, held + peak[c]);
      held += result[c];
    }
    peak[v] = std::max(p, held + model.defined_bytes(v));
    result[v] = model.kept_bytes(v);
    visit_order[v] = std::move(children);
  }

  enum : uint8_t { kNew, kVisiting, kDone };
  std::vector<uint8_t> state(n, kNew);
  std::vector<int> order;
  order.reserve(n);
  // (instruction, next child to visit)
  std::vector<std::pair<int, size_t>> stack;
  auto visit = [&](int start) {
    if (state[start] != kNew) return;
    stack.push_back({start, 0});
    state[start] = kVisiting;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < visit_order[v].size()) {
        int c = visit_order[v][next++];
        if (state[c] == kNew) {
          state[c] = kVisiting;
          stack.push_back({c, 0});
        }
        continue;
      }
      state[v] = kDone;
      order.push_back(v);
      stack.pop_back();
    }
  };
  for (int i = 0; i < n; ++i) {
    const SchedulingInstruction& in = graph.instruction(i);
    if (i != graph.root() && in.users.empty() && in.control_successors.empty()) visit(i);
  }
  if (n > 0) visit(graph.root());
  // Anything left (only reachable through control successors of the above).
  for (int i = 0; i < n; ++i) visit(i);
  return order;
}

}  // namespace hmo::scheduler
