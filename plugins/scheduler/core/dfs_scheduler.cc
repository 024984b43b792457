#include "core/dfs_scheduler.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/post_order_scheduler.h"

namespace hmo::scheduler {
namespace {

struct Stats {
  int64_t extra_users = 0;
  int64_t total_sizes = 0;
};

std::vector<Stats> ComputeStats(const SchedulingGraph& graph) {
  const int n = graph.instruction_count();
  std::vector<Stats> stats(n);
  // The caps keep the path-counting sums from overflowing on large DAGs.
  int64_t cumulative_total_size = 0;
  const int64_t total_instructions = n;
  for (int i : PostOrderSchedule(graph)) {
    const SchedulingInstruction& in = graph.instruction(i);
    if (in.IsParameterOrConstant()) continue;
    Stats& s = stats[i];
    s.extra_users = in.users.empty() ? 0 : static_cast<int64_t>(in.users.size()) - 1;
    int64_t own_size = 0;
    for (int v : in.defined_values) own_size += graph.value(v).size;
    s.total_sizes = own_size;
    cumulative_total_size += own_size;
    for (int o : in.unique_operands) {
      s.extra_users += stats[o].extra_users;
      s.total_sizes += stats[o].total_sizes;
    }
    s.total_sizes = std::min(s.total_sizes, cumulative_total_size);
    s.extra_users = std::min(s.extra_users, total_instructions);
  }
  return stats;
}

}  // namespace

absl::StatusOr<std::vector<int>> DfsSchedule(const SchedulingGraph& graph) {
  const int n = graph.instruction_count();
  const std::vector<Stats> stats = ComputeStats(graph);
  auto visit_first = [&](int a, int b) {
    if (stats[a].extra_users != stats[b].extra_users) {
      return stats[a].extra_users > stats[b].extra_users;
    }
    if (stats[a].total_sizes != stats[b].total_sizes) {
      return stats[a].total_sizes > stats[b].total_sizes;
    }
    return graph.instruction(a).name < graph.instruction(b).name;
  };

  enum : uint8_t { kNotVisited, kVisiting, kVisited };
  std::vector<uint8_t> state(n, kNotVisited);
  std::vector<int> order;
  order.reserve(n);
  std::vector<int> stack;
  // XLA's iterative post-order DFS: children (operands, repeats included, then
  // control predecessors) that are not visited yet are pushed, sorted so the
  // one to visit first ends on top.
  auto visit_from = [&](int start) -> absl::Status {
    stack.push_back(start);
    while (!stack.empty()) {
      int current = stack.back();
      if (state[current] == kVisited) {
        stack.pop_back();
        continue;
      }
      if (state[current] == kVisiting) {
        stack.pop_back();
        state[current] = kVisited;
        order.push_back(current);
        continue;
      }
      state[current] = kVisiting;
      const size_t old_size = stack.size();
      const SchedulingInstruction& in = graph.instruction(current);
      for (const std::vector<int>* children : {&in.operands, &in.control_predecessors}) {
        for (int child : *children) {
          if (state[child] == kVisiting) {
            return absl::FailedPreconditionError(
                absl::StrCat("cycle through instruction '", graph.instruction(child).name, "'"));
          }
          if (state[child] == kNotVisited) stack.push_back(child);
        }
      }
      std::sort(stack.begin() + old_size, stack.end(), visit_first);
      std::reverse(stack.begin() + old_size, stack.end());
    }
    return absl::OkStatus();
  };
  for (int i = 0; i < n; ++i) {
    const SchedulingInstruction& in = graph.instruction(i);
    if (i != graph.root() && in.users.empty() && in.control_successors.empty()) {
      absl::Status status = visit_from(i);
      if (!status.ok()) return status;
    }
  }
  if (n > 0) {
    absl::Status status = visit_from(graph.root());
    if (!status.ok()) return status;
  }
  if (static_cast<int>(order.size()) != n) {
    return absl::FailedPreconditionError(absl::StrCat(
        "DFS reached ", order.size(), " of ", n,
        " instructions; the others lead only to instructions with control successors"));
  }
  return order;
}

}  // namespace hmo::scheduler
