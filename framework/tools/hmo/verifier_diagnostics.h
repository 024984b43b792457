#ifndef HMO_TOOLS_HMO_VERIFIER_DIAGNOSTICS_H_
#define HMO_TOOLS_HMO_VERIFIER_DIAGNOSTICS_H_

// Verifier errors as the commands print them: positioned in the file the
// module was parsed from when the instruction carries its source location
// ("FILE:LINE:COL: error: module 'm': ...", the line and a caret), else
// "FILE: module 'm': ...".

#include <string>

#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/verifier_error.h"

namespace hmo::cli {

// Reads `file` again (only for the quoted line) when the error has a position.
std::string FormatVerifierError(const std::string& file, const HloModule& module,
                                const HloVerifierError& error);

// "FILE:LINE:COL: " for an error with a position, else "FILE: ".
std::string VerifierErrorPrefix(const std::string& file, const HloVerifierError& error);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_VERIFIER_DIAGNOSTICS_H_
