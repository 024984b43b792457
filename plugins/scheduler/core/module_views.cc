#include "core/module_views.h"

#include "hmo/analysis/heap_simulator.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::scheduler {

SchedulingInputs MakeSchedulingInputs(const HloAliasAnalysis& alias_analysis,
                                      int64_t pointer_size) {
  SchedulingInputs inputs;
  inputs.values.dataflow = &alias_analysis.dataflow_analysis();
  inputs.values.alias_analysis = &alias_analysis;
  inputs.values.size_fn = ByteSizeOfValue(pointer_size);
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

absl::StatusOr<SchedulingGraph> GraphOfComputation(const HloComputation& computation,
                                                   const SchedulingInputs& inputs) {
  std::unique_ptr<SchedulingView> view =
      BuildSchedulingView(computation, inputs.may_share, &inputs.values);
  return SchedulingGraph::FromView(view->view());
}

}  // namespace hmo::scheduler
