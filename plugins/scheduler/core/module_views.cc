#include "core/module_views.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "core/dfs_scheduler.h"
#include "core/list_scheduler.h"
#include "core/memory_model.h"
#include "core/post_order_scheduler.h"
#include "core/subtree_peak_scheduler.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_opcode.h"

namespace hmo::scheduler {

SchedulingInputs MakeSchedulingInputs(const HloAliasAnalysis& alias_analysis,
                                      BufferSizeFunction size_fn) {
  SchedulingInputs inputs;
  inputs.values.dataflow = &alias_analysis.dataflow_analysis();
  inputs.values.alias_analysis = &alias_analysis;
  inputs.values.size_fn = std::move(size_fn);
  inputs.may_share = [&alias_analysis](const HloInstruction& user, int64_t operand_index) {
    const HloDataflowAnalysis& dataflow = alias_analysis.dataflow_analysis();
    const HloInstruction* operand = user.operand(operand_index);
    if (!user.shape().IsArray() || !operand->shape().IsArray()) return false;
    if (!dataflow.ValueIsDefinedAt(operand) || !dataflow.ValueIsDefinedAt(&user)) return false;
    if (alias_analysis.GetBufferContainingValue(dataflow.GetValueDefinedAt(operand))
                .values()
                .size() != 1 ||
        alias_analysis.GetBufferContainingValue(dataflow.GetValueDefinedAt(&user))
                .values()
                .size() != 1) {
      return false;
    }
    return dataflow.CanShareOperandBufferWithUser(const_cast<HloInstruction*>(operand), {},
                                                  const_cast<HloInstruction*>(&user), {});
  };
  return inputs;
}

namespace {

// What `graph`'s computation keeps live beyond what its caller already counts:
// the lowest peak among the cheap orders of the computation's own
// temporaries, without its parameters (the caller's operands) and without
// its live-out values (they share buffers with the caller's results).
int64_t EstimatedPeak(const SchedulingGraph& graph) {
  MemoryModel model(graph);
  std::vector<std::vector<int>> orders = {ListSchedule(graph), PostOrderSchedule(graph),
                                          SubtreePeakSchedule(model)};
  if (absl::StatusOr<std::vector<int>> dfs = DfsSchedule(graph); dfs.ok()) {
    orders.push_back(*std::move(dfs));
  }
  int64_t best = INT64_MAX;
  for (const std::vector<int>& order : orders) {
    std::vector<int64_t> profile = model.Profile(order);
    int64_t peak = 0, live_out = 0;
    for (size_t p = 0; p < order.size(); ++p) {
      for (int v : graph.instruction(order[p]).defined_values) {
        if (model.tracked(v) && graph.value(v).live_out) live_out += graph.value(v).size;
      }
      peak = std::max(peak, profile[p] - live_out);
    }
    best = std::min(best, peak);
  }
  return best == INT64_MAX ? 0 : best;
}

}  // namespace

absl::StatusOr<std::vector<ComputationView>> BuildModuleViews(const HloModule& module,
                                                              const SchedulingInputs& inputs) {
  std::vector<ComputationView> views;
  absl::flat_hash_map<const HloComputation*, int64_t> estimate;
  for (const HloComputation* computation : module.MakeNonfusionComputations()) {
    ComputationView entry{computation, nullptr};
    HMO_ASSIGN_OR_RETURN(entry.view,
                         BuildSchedulingView(*computation, inputs.may_share, &inputs.values));
    for (const HloInstruction* instruction : computation->instructions()) {
      const HloOpcode opcode = instruction->opcode();
      if (opcode != HloOpcode::kWhile && opcode != HloOpcode::kCall &&
          opcode != HloOpcode::kConditional) {
        continue;
      }
      int64_t transient = 0;
      for (const HloComputation* callee : instruction->called_computations()) {
        auto it = estimate.find(callee);
        if (it != estimate.end()) transient = std::max(transient, it->second);
      }
      if (std::optional<HmoInstructionId> id = entry.view->IdOf(instruction); id.has_value()) {
        entry.view->SetTransientBytes(*id, static_cast<uint64_t>(transient));
      }
    }
    // Only what control flow calls needs an estimate.
    bool called = false;
    for (const HloInstruction* caller : computation->caller_instructions()) {
      const HloOpcode opcode = caller->opcode();
      called = called || opcode == HloOpcode::kWhile || opcode == HloOpcode::kCall ||
               opcode == HloOpcode::kConditional;
    }
    if (called) {
      absl::StatusOr<SchedulingGraph> graph = SchedulingGraph::FromView(entry.view->view());
      estimate[computation] = graph.ok() ? EstimatedPeak(*graph) : 0;
    }
    views.push_back(std::move(entry));
  }
  return views;
}

absl::StatusOr<SchedulingGraph> GraphOfComputation(const HloComputation& computation,
                                                   const SchedulingInputs& inputs) {
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<SchedulingView> view,
                       BuildSchedulingView(computation, inputs.may_share, &inputs.values));
  return SchedulingGraph::FromView(view->view());
}

}  // namespace hmo::scheduler
