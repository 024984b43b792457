#ifndef HMO_REWRITES_EXECUTION_PREPARATION_H_
#define HMO_REWRITES_EXECUTION_PREPARATION_H_

// What every executing backend does to a module before buffer assignment,
// on a private clone (the caller's module is left as it is):
//   0. calls inlined (call_inlining.h), and fusions the backend cannot emit
//      expanded into their instructions (fusion_expansion.h), when it names
//      them, then regrouped by the backend into fusions it emits, when it
//      says how;
//   1. the call graph flattened (flatten_call_graph.h), so every control-flow
//      callee's parameters have one site's buffers, and the layouts at its
//      boundaries made to agree (control_flow_layouts.h);
//   2. copy-insertion (copy_insertion.h), so that while and conditional
//      buffers are interference-free, and copies of in-place operands that
//      must survive their update (in_place_operand_copies.h);
//   3. a complete schedule (the module's own sequences where it has them
//      (updated with the copies), post order (which respects operands and
//      control dependencies) for every other non-fusion computation);
//   4. donated outputs the schedule would write before the donated
//      parameter's last read copied into place at the end
//      (aliased_output_copies.h).

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// Errors: `module` has no entry computation, or copy-insertion or the
// schedule fails to verify.
struct ExecutionPreparationOptions {
  // Fusions for which this returns true are expanded (null: none).
  std::function<bool(const HloInstruction& fusion)> expand_fusion;
  // Called after the expansion with the instructions it added (possibly
  // none): a backend fuses them again into fusions its emitters emit whole,
  // so the expanded fusions' intermediates need no buffers, and may rewrite
  // other instructions into forms its emitters compute better (null: the
  // expanded instructions stay one instruction each).
  std::function<absl::Status(HloModule& module, const std::vector<HloInstruction*>& expanded)>
      regroup_expanded;
};

absl::StatusOr<std::unique_ptr<HloModule>> CloneForExecution(
    const HloModule& module, const ExecutionPreparationOptions& options = {});

}  // namespace hmo

#endif  // HMO_REWRITES_EXECUTION_PREPARATION_H_
