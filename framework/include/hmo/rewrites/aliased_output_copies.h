#ifndef HMO_REWRITES_ALIASED_OUTPUT_COPIES_H_
#define HMO_REWRITES_ALIASED_OUTPUT_COPIES_H_

// CopyAliasedOutputsWrittenTooEarly: an output that input_output_alias puts
// in a donated parameter's buffer overwrites that parameter when it is
// computed. Under a schedule in which the parameter is still read after the
// output's value is defined (another consumer of the donated weight runs
// later), that write destroys bytes still needed: the output leaf is then
// computed into a buffer of its own and copied into the donated buffer at
// the end of the entry, after the parameter's last read (XLA's copy
// insertion copies aliased inputs for the same reason).
//
// An output computed by the parameter's last reader in place (an
// elementwise update w - lr * g) needs no copy. Loops, conditionals and
// calls that carry the parameter count as reading it where they run.
//
// Precondition: the module is scheduled (the order decides what is read
// after what). The copies are added to the entry's sequence just before its
// root. Only leaves of the entry root (an array, or a tuple's array
// elements) are rewritten.

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// Returns whether a copy was added.
absl::StatusOr<bool> CopyAliasedOutputsWrittenTooEarly(HloModule& module);

}  // namespace hmo

#endif  // HMO_REWRITES_ALIASED_OUTPUT_COPIES_H_
