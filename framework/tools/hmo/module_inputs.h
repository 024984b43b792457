#ifndef HMO_TOOLS_HMO_MODULE_INPUTS_H_
#define HMO_TOOLS_HMO_MODULE_INPUTS_H_

// The module files named on a command line: files as given; an --xla_dump_to
// directory expanded to each program's module at a stage (dump_directory.h);
// any other directory to the HLO text files (*.hlo, *.txt) anywhere inside it.

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dump_directory.h"

namespace hmo::cli {

// One module file to read, and the program it holds when it came from a dump
// directory (e.g. "jit_train_step"; empty otherwise).
struct ModuleInput {
  std::filesystem::path path;
  std::string program;
};

// Returns the files, in argument order (a dump directory's in module order,
// another directory's sorted by path), without repeats. A directory is a dump
// directory when it holds module files at either stage; `stage` picks which.
// Errors: NotFound for an argument that does not exist, for a dump directory
// without modules at `stage`, and for a directory with neither HLO files nor
// dump modules, each naming the directory and what was looked for.
absl::StatusOr<std::vector<ModuleInput>> ExpandModuleInputs(
    const std::vector<std::string>& arguments, DumpStage stage);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_MODULE_INPUTS_H_
