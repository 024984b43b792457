#include "module_inputs.h"

#include <algorithm>
#include <utility>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"

namespace hmo::cli {
namespace fs = std::filesystem;

absl::StatusOr<std::vector<ModuleInput>> ExpandModuleInputs(
    const std::vector<std::string>& arguments, DumpStage stage) {
  std::vector<ModuleInput> inputs;
  auto add = [&](const fs::path& file, std::string program) {
    if (std::none_of(inputs.begin(), inputs.end(),
                     [&](const ModuleInput& input) { return input.path == file; })) {
      inputs.push_back({file, std::move(program)});
    }
  };
  for (const std::string& argument : arguments) {
    std::error_code error;
    const fs::path path(argument);
    if (fs::is_directory(path, error)) {
      // A dump holds per-pass dumps and reports beside each program's module:
      // only the module at `stage` is read (an error when it has none).
      if (IsDumpDirectory(path)) {
        HMO_ASSIGN_OR_RETURN(std::vector<DumpModule> dump, FindDumpModules(path, stage));
        for (DumpModule& module : dump) add(module.path, std::move(module.program));
        continue;
      }
      std::vector<fs::path> found;
      for (const auto& entry : fs::recursive_directory_iterator(path, error)) {
        const fs::path extension = entry.path().extension();
        if (entry.is_regular_file(error) && (extension == ".hlo" || extension == ".txt")) {
          found.push_back(entry.path());
        }
      }
      if (found.empty()) {
        return absl::NotFoundError(fmt::format(
            "{}: directory holds no HLO files (*.hlo, *.txt) and no XLA dump module ({})", argument,
            DumpModuleFileName(stage)));
      }
      std::sort(found.begin(), found.end());
      for (const fs::path& file : found) add(file, "");
    } else if (fs::exists(path, error)) {
      add(path, "");
    } else {
      return absl::NotFoundError(fmt::format("{}: no such file or directory", argument));
    }
  }
  return inputs;
}

}  // namespace hmo::cli
