#ifndef HMO_SRC_VERIFIER_CYCLE_CHECKS_H_
#define HMO_SRC_VERIFIER_CYCLE_CHECKS_H_

// Cycle checks of the HLO verifier: the call graph between computations
// (rule call-graph-cycle) and, inside each computation, the graph of data
// (operand) plus control edges (rule cycle). Internal to libhmo_framework.

#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/verifier_error.h"

namespace hmo::verifier_internal {

// Reports one error per call-graph cycle found (named by the computation
// where the cycle closes). Null and foreign callees are ignored.
void CheckCallGraphCycles(const HloModule& module, VerifierErrorSink& sink);

// Reports an error naming an instruction on a cycle through operand and
// control-predecessor edges inside `computation` (edges leaving the
// computation are ignored; they are structure errors).
void CheckDataControlCycles(const HloComputation& computation, VerifierErrorSink& sink);

}  // namespace hmo::verifier_internal

#endif  // HMO_SRC_VERIFIER_CYCLE_CHECKS_H_
