#include "core/scheduling_graph.h"

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hmo::scheduler {
namespace {

std::vector<int> CopyIds(const uint32_t* ids, size_t count) {
  std::vector<int> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) out.push_back(static_cast<int>(ids[i]));
  return out;
}

bool ViewHasValueTable(const HmoSchedulingView& view) {
  if (!HMO_ABI_HAS_FIELD(&view, HmoSchedulingView, value_flags)) return false;
  // A host that fills the table gives every computation at least the root's
  // values; an empty table means the host left it out.
  return view.value_count > 0 && view.value_sizes != nullptr &&
         view.value_defining_instruction_ids != nullptr && view.value_flags != nullptr;
}

}  // namespace

absl::StatusOr<SchedulingGraph> SchedulingGraph::FromView(const HmoSchedulingView& view) {
  SchedulingGraph graph;
  const size_t n = view.instruction_count;
  if (n > 0 && view.root_id >= n) {
    return absl::InvalidArgumentError(absl::StrCat("root id ", view.root_id, " out of range"));
  }
  graph.root_ = static_cast<int>(view.root_id);
  const bool has_values = ViewHasValueTable(view);
  graph.instructions_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const HmoSchedulingInstruction* in = view.instructions[i];
    if (in == nullptr || in->id != i) {
      return absl::InvalidArgumentError(
          absl::StrCat("instruction at index ", i, " does not carry id ", i));
    }
    SchedulingInstruction& out = graph.instructions_[i];
    out.name = in->name != nullptr ? in->name : "";
    out.opcode = in->opcode != nullptr ? in->opcode : "";
    out.operands = CopyIds(in->operand_ids, in->operand_count);
    out.users = CopyIds(in->user_ids, in->user_count);
    out.control_predecessors =
        CopyIds(in->control_predecessor_ids, in->control_predecessor_count);
    out.control_successors = CopyIds(in->control_successor_ids, in->control_successor_count);
    out.may_share_operands = CopyIds(in->may_share_operand_ids, in->may_share_operand_count);
    const bool has_instruction_values =
        HMO_ABI_HAS_FIELD(in, HmoSchedulingInstruction, flags);
    if (has_values && has_instruction_values) {
      out.defined_values = CopyIds(in->defined_value_ids, in->defined_value_count);
      out.used_values = CopyIds(in->used_value_ids, in->used_value_count);
      out.effective_scalar = (in->flags & HMO_INSTRUCTION_EFFECTIVE_SCALAR) != 0;
      out.has_feed_config = (in->flags & HMO_INSTRUCTION_HAS_FEED_CONFIG) != 0;
    }
    if (HMO_ABI_HAS_FIELD(in, HmoSchedulingInstruction, transient_bytes)) {
      out.transient_bytes = static_cast<int64_t>(in->transient_bytes);
    }
  }
  if (has_values) {
    graph.values_.resize(view.value_count);
    for (size_t v = 0; v < view.value_count; ++v) {
      SchedulingValue& value = graph.values_[v];
      value.size = static_cast<int64_t>(view.value_sizes[v]);
      HmoInstructionId def = view.value_defining_instruction_ids[v];
      if (def != HMO_NO_INSTRUCTION && def >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("value ", v, " has defining instruction ", def, " out of range"));
      }
      value.defining_instruction = def == HMO_NO_INSTRUCTION ? kNoInstruction : int(def);
      value.live_out = (view.value_flags[v] & HMO_VALUE_LIVE_OUT) != 0;
      value.defined_by_parameter_or_constant =
          (view.value_flags[v] & HMO_VALUE_DEFINED_BY_PARAMETER_OR_CONSTANT) != 0;
      value.freed_after_last_use = (view.value_flags[v] & HMO_VALUE_FREED_AFTER_LAST_USE) != 0;
      value.outside_temp_arena = (view.value_flags[v] & HMO_VALUE_OUTSIDE_TEMP_ARENA) != 0;
    }
  } else {
    // ABI 1.0 view: one value per instruction, read by its users.
    graph.values_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const HmoSchedulingInstruction* in = view.instructions[i];
      SchedulingInstruction& out = graph.instructions_[i];
      SchedulingValue& value = graph.values_[i];
      value.size = static_cast<int64_t>(in->bytes_defined);
      value.defining_instruction = static_cast<int>(i);
      value.live_out = in->is_live_out != 0;
      value.defined_by_parameter_or_constant = out.IsParameterOrConstant();
      out.defined_values = {static_cast<int>(i)};
    }
    for (SchedulingInstruction& out : graph.instructions_) {
      out.used_values.clear();
      for (int o : out.operands) {
        if (o < 0 || static_cast<size_t>(o) >= n) break;  // reported by Finish()
        if (std::find(out.used_values.begin(), out.used_values.end(), o) == out.used_values.end()) {
          out.used_values.push_back(o);
        }
      }
    }
  }
  absl::Status status = graph.Finish();
  if (!status.ok()) return status;
  return graph;
}

absl::StatusOr<SchedulingGraph> SchedulingGraph::Create(
    std::vector<SchedulingInstruction> instructions, std::vector<SchedulingValue> values,
    int root) {
  SchedulingGraph graph;
  graph.instructions_ = std::move(instructions);
  graph.values_ = std::move(values);
  graph.root_ = root;
  const int n = graph.instruction_count();
  if (n > 0 && (root < 0 || root >= n)) {
    return absl::InvalidArgumentError(absl::StrCat("root ", root, " out of range"));
  }
  for (SchedulingInstruction& in : graph.instructions_) {
    in.users.clear();
    in.control_successors.clear();
  }
  for (int i = 0; i < n; ++i) {
    for (int o : graph.instructions_[i].operands) {
      if (o < 0 || o >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("operand ", o, " of instruction ", i, " out of range"));
      }
      std::vector<int>& users = graph.instructions_[o].users;
      if (std::find(users.begin(), users.end(), i) == users.end()) users.push_back(i);
    }
    for (int p : graph.instructions_[i].control_predecessors) {
      if (p < 0 || p >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("control predecessor ", p, " of instruction ", i, " out of range"));
      }
      graph.instructions_[p].control_successors.push_back(i);
    }
  }
  absl::Status status = graph.Finish();
  if (!status.ok()) return status;
  return graph;
}

absl::Status SchedulingGraph::Finish() {
  const int n = instruction_count();
  const int value_total = value_count();
  auto check_ids = [n](const std::vector<int>& ids, const char* what,
                       int i) -> absl::Status {
    for (int id : ids) {
      if (id < 0 || id >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, " id ", id, " of instruction ", i, " out of range"));
      }
    }
    return absl::OkStatus();
  };
  size_t unique_operand_edges = 0, user_edges = 0;
  size_t control_edges_in = 0, control_edges_out = 0;
  for (int i = 0; i < n; ++i) {
    SchedulingInstruction& in = instructions_[i];
    for (auto [ids, what] : {std::pair{&in.operands, "operand"}, {&in.users, "user"},
                             {&in.control_predecessors, "control predecessor"},
                             {&in.control_successors, "control successor"},
                             {&in.may_share_operands, "may-share operand"}}) {
      absl::Status status = check_ids(*ids, what, i);
      if (!status.ok()) return status;
    }
    in.unique_operands.clear();
    for (int o : in.operands) {
      if (std::find(in.unique_operands.begin(), in.unique_operands.end(), o) ==
          in.unique_operands.end()) {
        in.unique_operands.push_back(o);
      }
    }
    unique_operand_edges += in.unique_operands.size();
    user_edges += in.users.size();
    control_edges_in += in.control_predecessors.size();
    control_edges_out += in.control_successors.size();
    for (const std::vector<int>* ids : {&in.defined_values, &in.used_values}) {
      for (int v : *ids) {
        if (v < 0 || v >= value_total) {
          return absl::InvalidArgumentError(
              absl::StrCat("value id ", v, " of instruction ", i, " out of range"));
        }
      }
    }
  }
  // Users must mirror unique operands, and successors predecessors.
  for (int i = 0; i < n; ++i) {
    for (int u : instructions_[i].users) {
      const std::vector<int>& ops = instructions_[u].unique_operands;
      if (std::find(ops.begin(), ops.end(), i) == ops.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "instruction ", i, " lists user ", u, " that does not have it as an operand"));
      }
    }
    for (int s : instructions_[i].control_successors) {
      const std::vector<int>& preds = instructions_[s].control_predecessors;
      if (std::find(preds.begin(), preds.end(), i) == preds.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "instruction ", i, " lists control successor ", s, " that does not list it back"));
      }
    }
  }
  if (unique_operand_edges != user_edges || control_edges_in != control_edges_out) {
    return absl::InvalidArgumentError("operand and user lists do not mirror each other");
  }
  value_users_.assign(value_total, {});
  for (int i = 0; i < n; ++i) {
    for (int v : instructions_[i].used_values) value_users_[v].push_back(i);
  }
  return absl::OkStatus();
}

absl::Status SchedulingGraph::ValidateOrder(const std::vector<int>& order) const {
  const int n = instruction_count();
  if (static_cast<int>(order.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("order has ", order.size(), " entries for ", n, " instructions"));
  }
  std::vector<int> position(n, -1);
  for (int p = 0; p < n; ++p) {
    int i = order[p];
    if (i < 0 || i >= n || position[i] != -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("order entry ", p, " (", i, ") is out of range or repeated"));
    }
    position[i] = p;
  }
  for (int i = 0; i < n; ++i) {
    for (const std::vector<int>* before :
         {&instructions_[i].operands, &instructions_[i].control_predecessors}) {
      for (int b : *before) {
        if (position[b] > position[i]) {
          return absl::InvalidArgumentError(absl::StrCat("instruction '", instructions_[i].name,
                                                         "' is ordered before its predecessor '",
                                                         instructions_[b].name, "'"));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace hmo::scheduler
