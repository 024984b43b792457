#ifndef HMO_VERIFIER_ALIAS_VERIFIER_H_
#define HMO_VERIFIER_ALIAS_VERIFIER_H_

// Checks input_output_alias and buffer_donor against the entry computation's
// parameters and root shape (phase 6 of hlo_verifier.h). Rules:
//   alias-output-index         the output index is not in the entry result
//   alias-parameter            the parameter number or index does not exist
//   alias-shape                an aliased sub-shape is not an array
//   alias-size                 aliased arrays differ in byte size
//                              (ShapeUtil::ByteSizeOf, layouts as written)
//   alias-memory-space         aliased arrays are in different memory spaces
//   alias-duplicate-parameter  one parameter buffer aliases two outputs
//   alias-cycle                the orders donations need (every other reader
//                              of a donated parameter that does not need the
//                              writer of its output runs before that writer)
//                              form a cycle with the data and
//                              control edges (e.g. two outputs donated
//                              crosswise); the aliases on it are named
//   buffer-donor               a donor's parameter number or index does not exist
//   buffer-donor-aliased       a donor is also in input_output_alias
// Nothing is checked when the module has no entry computation (a structure
// error reported elsewhere).

#include "absl/status/status.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/verifier_error.h"

namespace hmo {

void CheckModuleAliasing(const HloModule& module, VerifierErrorSink& sink);

// OK, or InvalidArgument with the first violation's text.
absl::Status VerifyModuleAliasing(const HloModule& module);

}  // namespace hmo

#endif  // HMO_VERIFIER_ALIAS_VERIFIER_H_
