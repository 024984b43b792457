#ifndef HMO_REWRITES_FLATTEN_CALL_GRAPH_H_
#define HMO_REWRITES_FLATTEN_CALL_GRAPH_H_

// FlattenCallGraph: gives every computation run as control flow (a call's
// callee, a while's condition and body, a conditional's branches) exactly
// one call site, cloning it for each further site (XLA's FlattenCallGraph).
//
// Why: dataflow gives a control-flow callee's parameter the values of every
// site that calls it, so a computation JAX calls from four places (a shared
// `relu`, `_where`, ...) has a parameter whose value lives in four buffers,
// and no one address can be compiled for it. After flattening each parameter
// receives one site's values.
//
// Clones share the embedded computations they apply (fusion bodies,
// reducers), which are never run as control flow. A scheduled module keeps
// its schedule: a clone gets the original's sequence.

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// Returns whether a computation was cloned.
absl::StatusOr<bool> FlattenCallGraph(HloModule& module);

}  // namespace hmo

#endif  // HMO_REWRITES_FLATTEN_CALL_GRAPH_H_
