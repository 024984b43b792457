#ifndef HMO_REWRITES_IN_PLACE_OPERAND_COPIES_H_
#define HMO_REWRITES_IN_PLACE_OPERAND_COPIES_H_

// CopyInPlaceOperandsThatMustSurvive: an in-place pair (dynamic-update-slice,
// scatter, a fusion rooted in one, output_to_operand_aliasing) shares one
// buffer between its operand and its output (alias analysis merges them, as
// XLA's does), so the update writes the operand's memory. That is wrong when
// the operand must survive the update:
//   - it holds an entry parameter the caller keeps (not donated) or a
//     constant: read-only memory;
//   - another instruction reads it after the update: in a scheduled
//     computation, a reader later in the sequence; in an unscheduled one, a
//     reader that depends on the update (other readers get a control edge
//     to the update instead).
// Each such operand is copied first and the update works on the copy. (XLA's
// copy insertion copies every in-place operand and then removes the copies
// it proves unneeded; this adds only the needed ones, so a module XLA already
// prepared gains none.)
//
// A scheduled computation keeps its schedule: each copy goes just before its
// update. Only array operands are handled.

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// Returns whether anything was added (a copy or a control edge).
absl::StatusOr<bool> CopyInPlaceOperandsThatMustSurvive(HloModule& module);

}  // namespace hmo

#endif  // HMO_REWRITES_IN_PLACE_OPERAND_COPIES_H_
