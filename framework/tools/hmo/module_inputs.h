#ifndef HMO_TOOLS_HMO_MODULE_INPUTS_H_
#define HMO_TOOLS_HMO_MODULE_INPUTS_H_

// The module files named on a command line: files as given, and directories
// expanded to the HLO text files (*.hlo, *.txt) anywhere inside them.

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hmo::cli {

// Returns the files, in argument order (a directory's files sorted by path),
// without repeats. Returns NotFound for an argument that does not exist and
// for a directory without HLO files.
absl::StatusOr<std::vector<std::filesystem::path>> ExpandModuleInputs(
    const std::vector<std::string>& arguments);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_MODULE_INPUTS_H_
