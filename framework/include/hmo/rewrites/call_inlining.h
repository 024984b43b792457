#ifndef HMO_REWRITES_CALL_INLINING_H_
#define HMO_REWRITES_CALL_INLINING_H_

// InlineCalls: every `call` of a non-fusion computation replaced by the
// instructions of its callee (XLA's CallInliner), so that the analyses that
// decide copies and buffers see one flat computation: copy-insertion can list
// the readers of a loop's state and keep a scan's stacked outputs updated in
// place instead of copying them through calls. A scheduled caller gets the
// callee's sequence in place of the call. Where the layouts at the boundary
// differ, a layout-changing copy takes the call's place there (the copy the
// call would need anyway). Calls the inliner leaves alone:
// those with control edges, frontend attributes (host compute, sharding
// annotations) or a backend config. Callees no call site uses any more go.

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// Returns whether a call was inlined.
absl::StatusOr<bool> InlineCalls(HloModule& module);

}  // namespace hmo

#endif  // HMO_REWRITES_CALL_INLINING_H_
