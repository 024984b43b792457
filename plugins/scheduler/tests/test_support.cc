#include "test_support.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/strategy_host/scheduling_view.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::scheduler::testing {

absl::StatusOr<std::unique_ptr<AnalyzedModule>> AnalyzedModule::Parse(std::string_view text) {
  auto result = std::unique_ptr<AnalyzedModule>(new AnalyzedModule());
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, "test.hlo");
  if (!module.ok()) return module.status();
  result->module_ = *std::move(module);
  absl::StatusOr<std::unique_ptr<HloAliasAnalysis>> alias =
      HloAliasAnalysis::Run(result->module_.get());
  if (!alias.ok()) return alias.status();
  result->alias_analysis_ = *std::move(alias);
  result->inputs_ = MakeSchedulingInputs(*result->alias_analysis_);
  return result;
}

const HloComputation& AnalyzedModule::computation(std::string_view name) const {
  if (name.empty()) return *module_->entry_computation();
  const HloComputation* computation = module_->GetComputationWithName(name);
  if (computation == nullptr) std::abort();
  return *computation;
}

SchedulingGraph AnalyzedModule::Graph(std::string_view name) const {
  absl::StatusOr<SchedulingGraph> graph = GraphOfComputation(computation(name), inputs_);
  if (!graph.ok()) std::abort();
  return *std::move(graph);
}

HloSchedule AnalyzedModule::Schedule(
    const std::function<std::vector<int>(const SchedulingGraph&)>& order_fn) const {
  HloSchedule schedule(module_.get());
  for (const HloComputation* computation : module_->MakeNonfusionComputations()) {
    absl::StatusOr<std::unique_ptr<SchedulingView>> built =
        BuildSchedulingView(*computation, inputs_.may_share, &inputs_.values);
    if (!built.ok()) std::abort();
    const std::unique_ptr<SchedulingView>& view = *built;
    absl::StatusOr<SchedulingGraph> graph = SchedulingGraph::FromView(view->view());
    if (!graph.ok()) std::abort();
    std::vector<HloInstruction*> sequence;
    for (int id : order_fn(*graph)) sequence.push_back(view->instruction(id));
    schedule.set_sequence(computation, sequence);
  }
  return schedule;
}

int64_t AnalyzedModule::Peak(const HloSchedule& schedule) const {
  absl::StatusOr<int64_t> peak =
      HeapSimulator::MinimumMemoryForModule(schedule, *alias_analysis_, ByteSizeOfValue(8));
  if (!peak.ok()) std::abort();
  return *peak;
}

std::string Names(const SchedulingGraph& graph, const std::vector<int>& order) {
  std::vector<std::string> names;
  for (int i : order) names.push_back(graph.instruction(i).name);
  return absl::StrJoin(names, " ");
}

std::string Names(const HloSchedule& schedule, const HloComputation& computation) {
  std::vector<std::string> names;
  for (const HloInstruction* instruction : schedule.sequence(&computation).instructions()) {
    names.push_back(instruction->name());
  }
  return absl::StrJoin(names, " ");
}

SchedulingGraph RandomGraph(std::mt19937& rng, int n) {
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto below = [&](int k) { return static_cast<int>(rng() % k); };
  std::vector<SchedulingInstruction> instructions(n);
  std::vector<SchedulingValue> values(n);
  for (int i = 0; i < n; ++i) {
    SchedulingInstruction& in = instructions[i];
    in.name = "i" + std::to_string(i);
    if (i < 2 || chance(0.15)) {
      const int kind = below(10);
      in.opcode = kind < 5 ? "parameter" : kind < 7 ? "constant" : "iota";
    } else {
      in.opcode = "op";
      const int operand_count = 1 + below(3);
      for (int k = 0; k < operand_count; ++k) {
        int o = chance(0.7) ? std::max(0, i - 1 - below(std::min(i, 8))) : below(i);
        in.operands.push_back(o);
      }
    }
    values[i].size = 8 * below(9);
    values[i].defining_instruction = i;
    values[i].defined_by_parameter_or_constant = in.IsParameterOrConstant();
    values[i].freed_after_last_use = in.opcode == "parameter" && chance(0.4);
    values[i].live_out = i == n - 1 || chance(0.08);
    in.defined_values = {i};
    for (int o : in.operands) {
      auto add_use = [&](int v) {
        if (std::find(in.used_values.begin(), in.used_values.end(), v) == in.used_values.end()) {
          in.used_values.push_back(v);
        }
      };
      add_use(o);
      if (!instructions[o].operands.empty() && chance(0.2)) add_use(instructions[o].operands[0]);
      if (chance(0.3) && std::find(in.may_share_operands.begin(), in.may_share_operands.end(),
                                   o) == in.may_share_operands.end()) {
        in.may_share_operands.push_back(o);
      }
    }
  }
  absl::StatusOr<SchedulingGraph> graph =
      SchedulingGraph::Create(std::move(instructions), std::move(values), n - 1);
  if (!graph.ok()) std::abort();
  return *std::move(graph);
}

std::vector<int> RandomOrder(const SchedulingGraph& graph, std::mt19937& rng) {
  const int n = graph.instruction_count();
  std::vector<int> pending(n, 0);
  for (int i = 0; i < n; ++i) {
    pending[i] = static_cast<int>(graph.instruction(i).unique_operands.size() +
                                  graph.instruction(i).control_predecessors.size());
  }
  std::vector<int> ready, order;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    size_t pick = rng() % ready.size();
    int x = ready[pick];
    ready.erase(ready.begin() + pick);
    order.push_back(x);
    for (const std::vector<int>* succs :
         {&graph.instruction(x).users, &graph.instruction(x).control_successors}) {
      for (int s : *succs) {
        if (--pending[s] == 0) ready.push_back(s);
      }
    }
  }
  return order;
}

int64_t BruteForcePeak(const MemoryModel& model) {
  const SchedulingGraph& graph = model.graph();
  const int n = graph.instruction_count();
  std::vector<int> pending(n, 0), order;
  for (int i = 0; i < n; ++i) {
    pending[i] = static_cast<int>(graph.instruction(i).unique_operands.size() +
                                  graph.instruction(i).control_predecessors.size());
  }
  std::vector<bool> done(n, false);
  int64_t best = INT64_MAX;
  std::function<void()> visit = [&] {
    if (static_cast<int>(order.size()) == n) {
      best = std::min(best, model.Peak(order));
      return;
    }
    for (int x = 0; x < n; ++x) {
      if (done[x] || pending[x] != 0) continue;
      done[x] = true;
      order.push_back(x);
      for (int s : graph.instruction(x).users) --pending[s];
      for (int s : graph.instruction(x).control_successors) --pending[s];
      visit();
      for (int s : graph.instruction(x).users) ++pending[s];
      for (int s : graph.instruction(x).control_successors) ++pending[s];
      order.pop_back();
      done[x] = false;
    }
  };
  visit();
  return best;
}

}  // namespace hmo::scheduler::testing
