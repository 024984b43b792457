#ifndef HMO_TRANSFORMS_EXECUTION_PREPARATION_H_
#define HMO_TRANSFORMS_EXECUTION_PREPARATION_H_

// What every executing backend does to a module before buffer assignment,
// on a private clone (the caller's module is left as it is):
//   1. copy-insertion (copy_insertion.h), so that while and conditional
//      buffers are interference-free;
//   2. a complete schedule: the module's own sequences where it has them
//      (updated with the copies), post order (which respects operands and
//      control dependencies) for every other non-fusion computation.

#include <memory>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// Errors: `module` has no entry computation, or copy-insertion or the
// schedule fails to verify.
absl::StatusOr<std::unique_ptr<HloModule>> CloneForExecution(const HloModule& module);

}  // namespace hmo

#endif  // HMO_TRANSFORMS_EXECUTION_PREPARATION_H_
