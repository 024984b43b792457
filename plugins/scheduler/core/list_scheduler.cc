#include "core/list_scheduler.h"

#include <climits>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

namespace hmo::scheduler {
namespace {

// (bytes freed minus bytes defined, user count), compared lexicographically.
using Priority = std::pair<int64_t, int64_t>;

class ListSchedulerImpl {
 public:
  explicit ListSchedulerImpl(const SchedulingGraph& graph) : graph_(graph) {
    const int n = graph.instruction_count();
    unscheduled_use_count_.assign(graph.value_count(), 0);
    bytes_defined_.assign(n, 0);
    cached_uses_.assign(n, {});
    for (int i = 0; i < n; ++i) {
      const SchedulingInstruction& in = graph.instruction(i);
      if (!in.IsParameterOrConstant()) {
        for (int v : in.defined_values) bytes_defined_[i] += graph.value(v).size;
      }
      // An instruction without operands uses nothing, whatever the view says.
      if (in.operands.empty()) continue;
      for (int v : in.used_values) {
        ++unscheduled_use_count_[v];
        // Values of parameters and constants never count as freed.
        if (!graph.value(v).defined_by_parameter_or_constant) cached_uses_[i].push_back(v);
      }
    }
    // Live-out values have one more, implicit, use at the end.
    for (int v = 0; v < graph.value_count(); ++v) {
      if (graph.value(v).live_out) ++unscheduled_use_count_[v];
    }
  }

  std::vector<int> Run() {
    const int n = graph_.instruction_count();
    std::vector<int> order;
    order.reserve(n);
    std::vector<int> unscheduled_pred_count(n, 0);
    for (int i = 0; i < n; ++i) {
      for (int u : graph_.instruction(i).users) ++unscheduled_pred_count[u];
      for (int s : graph_.instruction(i).control_successors) ++unscheduled_pred_count[s];
    }
    // std::multimap keeps equal keys in insertion order and inserts after
    // them, which is what makes the last inserted entry win ties.
    std::multimap<Priority, int> ready_queue;
    std::vector<std::multimap<Priority, int>::iterator> ready(n, ready_queue.end());
    std::vector<bool> is_ready(n, false);
    auto add_to_ready_queue = [&](int i) {
      ready[i] = ready_queue.emplace(GetPriority(i), i);
      is_ready[i] = true;
    };
    for (int i = 0; i < n; ++i) {
      const SchedulingInstruction& in = graph_.instruction(i);
      if (in.operands.empty() && in.control_predecessors.empty()) add_to_ready_queue(i);
    }
    while (!ready_queue.empty()) {
      auto best_it = std::prev(ready_queue.end());
      int best = best_it->second;
      ready_queue.erase(best_it);
      is_ready[best] = false;
      order.push_back(best);

      const SchedulingInstruction& in = graph_.instruction(best);
      bool adjust_ready_queue = false;
      if (!in.operands.empty()) {
        for (int v : in.used_values) {
          if (--unscheduled_use_count_[v] == 1) adjust_ready_queue = true;
        }
      }
      auto update_pred_count = [&](int i) {
        if (--unscheduled_pred_count[i] == 0) add_to_ready_queue(i);
      };
      for (int u : in.users) update_pred_count(u);
      for (int s : in.control_successors) update_pred_count(s);
      // A value dropped to its last use: ready users of best's operands may
      // now free it, so their priority may have gone up.
      if (adjust_ready_queue) {
        for (int operand : in.operands) {
          for (int operand_user : graph_.instruction(operand).users) {
            if (!is_ready[operand_user]) continue;
            auto it = ready[operand_user];
            Priority new_priority = GetPriority(operand_user);
            if (new_priority == it->first) continue;
            ready[operand_user] = ready_queue.emplace(new_priority, operand_user);
            ready_queue.erase(it);
          }
        }
      }
    }
    return order;
  }

 private:
  int64_t BytesFreedIfScheduled(int i) const {
    const SchedulingInstruction& in = graph_.instruction(i);
    // Outfeeds with a config early, infeeds with a config late: it gives the
    // other side of the feed more time.
    if (in.has_feed_config && in.opcode == "outfeed") return INT_MAX;
    if (in.has_feed_config && in.opcode == "infeed") return INT_MIN;
    int64_t freed = 0;
    for (int v : cached_uses_[i]) {
      if (unscheduled_use_count_[v] == 1) freed += graph_.value(v).size;
    }
    return freed - bytes_defined_[i];
  }

  Priority GetPriority(int i) const {
    // Scalars are clustered so that unfused ones can stay in registers.
    if (graph_.instruction(i).effective_scalar) {
      return {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max()};
    }
    return {BytesFreedIfScheduled(i), static_cast<int64_t>(graph_.instruction(i).users.size())};
  }

  const SchedulingGraph& graph_;
  std::vector<int64_t> unscheduled_use_count_;
  std::vector<int64_t> bytes_defined_;
  std::vector<std::vector<int>> cached_uses_;
};

}  // namespace

std::vector<int> ListSchedule(const SchedulingGraph& graph) {
  return ListSchedulerImpl(graph).Run();
}

}  // namespace hmo::scheduler
