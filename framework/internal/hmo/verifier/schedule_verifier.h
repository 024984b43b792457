#ifndef HMO_VERIFIER_SCHEDULE_VERIFIER_H_
#define HMO_VERIFIER_SCHEDULE_VERIFIER_H_

// Checks a module's HloSchedule against the module (phase 5 of
// hlo_verifier.h). Rules:
//   schedule-module               the schedule belongs to another module
//   schedule-missing-sequence     a non-fusion computation has no sequence
//   schedule-extra-sequence       a sequence for a fusion computation or for a
//                                 computation that is not in the module
//   schedule-foreign-instruction  a sequence entry that is not a live
//                                 instruction of that computation (removed,
//                                 or from elsewhere); never dereferenced
//   schedule-duplicate            an instruction appears twice
//   schedule-missing-instruction  an instruction of the computation is absent
//   schedule-order                an operand or control predecessor comes at
//                                 or after its user
// Fusion computations are those called by a fusion instruction; every other
// computation of the module (reachable or not) needs a sequence.

#include "absl/status/status.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/verifier_error.h"

namespace hmo {

// Reports violations into `sink`; does nothing when the module has no
// schedule.
void CheckModuleSchedule(const HloModule& module, VerifierErrorSink& sink);

// OK, or InvalidArgument with the first violation's text.
absl::Status VerifyModuleSchedule(const HloModule& module);

}  // namespace hmo

#endif  // HMO_VERIFIER_SCHEDULE_VERIFIER_H_
