#include "core/memory_model.h"

#include <algorithm>

namespace hmo::scheduler {

MemoryModel::MemoryModel(const SchedulingGraph& graph) : graph_(graph) {
  const int n = graph.instruction_count();
  const int value_total = graph.value_count();
  tracked_.assign(value_total, false);
  live_in_.assign(value_total, false);
  for (int v = 0; v < value_total; ++v) {
    const SchedulingValue& value = graph.value(v);
    if (value.size <= 0) continue;
    const bool inside = value.defining_instruction != kNoInstruction;
    const bool is_constant =
        inside && graph.instruction(value.defining_instruction).opcode == "constant";
    // Constants are not allocated; values outside the temporary arena (when
    // the host asks for the arena) cost the same in every order.
    if (is_constant || value.outside_temp_arena) continue;
    if (!inside || graph.instruction(value.defining_instruction).opcode == "parameter") {
      if (value.freed_after_last_use && inside) {
        tracked_[v] = true;
        live_in_[v] = true;
      } else {
        baseline_bytes_ += value.size;
      }
      continue;
    }
    tracked_[v] = true;
  }
  defined_bytes_.assign(n, 0);
  kept_bytes_.assign(n, 0);
  share_candidates_.assign(n, {});
  tracked_uses_.assign(n, {});
  readers_.assign(value_total, {});
  for (int v = 0; v < value_total; ++v) {
    if (!tracked_[v]) continue;
    readers_[v] = graph.value_users(v);
    const int def = graph.value(v).defining_instruction;
    if (live_in_[v] &&
        std::find(readers_[v].begin(), readers_[v].end(), def) == readers_[v].end()) {
      readers_[v].push_back(def);
      tracked_uses_[def].push_back(v);
    }
  }
  for (int i = 0; i < n; ++i) {
    const SchedulingInstruction& in = graph.instruction(i);
    int tracked_defined = 0, only_value = -1;
    for (int v : in.defined_values) {
      if (!tracked_[v] || live_in_[v]) continue;
      defined_bytes_[i] += graph.value(v).size;
      if (graph.value(v).live_out || !readers_[v].empty()) {
        kept_bytes_[i] += graph.value(v).size;
      }
      ++tracked_defined;
      only_value = v;
    }
    for (int v : in.used_values) {
      if (tracked_[v]) tracked_uses_[i].push_back(v);
    }
    // The heap simulator lets a new value take over an operand's buffer that
    // dies at this very step; `copy` never does (its point is a new buffer).
    if (tracked_defined != 1 || in.defined_values.size() != 1 || in.opcode == "copy") continue;
    // Operand order, as the simulator tries them.
    for (int o : in.unique_operands) {
      if (std::find(in.may_share_operands.begin(), in.may_share_operands.end(), o) ==
          in.may_share_operands.end()) {
        continue;
      }
      const std::vector<int>& operand_values = graph.instruction(o).defined_values;
      if (operand_values.size() != 1) continue;
      int ov = operand_values[0];
      if (!tracked_[ov] || graph.value(ov).live_out) continue;
      share_candidates_[i].push_back(
          {ov, std::min(graph.value(ov).size, graph.value(only_value).size)});
    }
  }
}

std::vector<int64_t> MemoryModel::Profile(const std::vector<int>& order) const {
  const int n = static_cast<int>(order.size());
  std::vector<int> position(graph_.instruction_count(), 0);
  for (int p = 0; p < n; ++p) position[order[p]] = p;
  // Difference array over steps: +size at a value's first step, -size after
  // its last.
  std::vector<int64_t> delta(n + 1, 0);
  std::vector<int> last_step(graph_.value_count(), -1);
  for (int v = 0; v < graph_.value_count(); ++v) {
    if (!tracked_[v]) continue;
    const SchedulingValue& value = graph_.value(v);
    int start = live_in_[v] ? 0 : position[value.defining_instruction];
    int end = start;
    if (value.live_out) {
      end = n - 1;
    } else {
      for (int u : readers_[v]) end = std::max(end, position[u]);
    }
    last_step[v] = end;
    delta[start] += value.size;
    delta[end + 1] -= value.size;
  }
  std::vector<int64_t> profile(n, 0);
  int64_t live = 0;
  for (int p = 0; p < n; ++p) {
    live += delta[p];
    profile[p] = live + graph_.instruction(order[p]).transient_bytes;
    // A shared value is never live out, so its last step is its last user.
    profile[p] -= Reuse(order[p], [&](int v) { return last_step[v] == p; });
  }
  return profile;
}

int64_t MemoryModel::Peak(const std::vector<int>& order) const {
  int64_t peak = 0;
  for (int64_t bytes : Profile(order)) peak = std::max(peak, bytes);
  return peak + baseline_bytes_;
}

}  // namespace hmo::scheduler
