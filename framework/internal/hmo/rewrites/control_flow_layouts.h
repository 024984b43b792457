#ifndef HMO_REWRITES_CONTROL_FLOW_LAYOUTS_H_
#define HMO_REWRITES_CONTROL_FLOW_LAYOUTS_H_

// ConformControlFlowLayouts: makes the layouts agree where a value crosses
// into or out of a control-flow computation, by copies that change the
// layout (XLA's layout assignment does the same):
//   call         each operand -> the callee parameter's layout; the callee
//                root -> the call's layout;
//   while        the init -> the loop's layout; the body root -> the loop's
//                layout;
//   conditional  each branch operand -> the branch parameter's layout; each
//                branch root -> the conditional's layout.
//
// Why: JAX's dumps before XLA's optimizations pass a transpose's result
// ({0,1}) to a helper computation whose parameter is {1,0}. A value and the
// callee's parameter share a buffer; without the copy the callee reads the
// bytes in the wrong order. (Only the layouts of the parameters and roots
// decide; the shapes must already agree ignoring layout.)
//
// A scheduled module stays scheduled (HloSchedule::Update places each copy
// after its operand).

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// Returns whether a copy was added.
absl::StatusOr<bool> ConformControlFlowLayouts(HloModule& module);

}  // namespace hmo

#endif  // HMO_REWRITES_CONTROL_FLOW_LAYOUTS_H_
