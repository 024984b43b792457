#include "module_inputs.h"

#include <algorithm>

#include "fmt/format.h"

namespace hmo::cli {
namespace fs = std::filesystem;

absl::StatusOr<std::vector<fs::path>> ExpandModuleInputs(const std::vector<std::string>& arguments) {
  std::vector<fs::path> files;
  auto add = [&](const fs::path& file) {
    if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
  };
  for (const std::string& argument : arguments) {
    std::error_code error;
    const fs::path path(argument);
    if (fs::is_directory(path, error)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::recursive_directory_iterator(path, error)) {
        const fs::path extension = entry.path().extension();
        if (entry.is_regular_file(error) && (extension == ".hlo" || extension == ".txt")) {
          found.push_back(entry.path());
        }
      }
      if (found.empty()) {
        return absl::NotFoundError(
            fmt::format("{}: directory holds no HLO files (*.hlo, *.txt)", argument));
      }
      std::sort(found.begin(), found.end());
      for (const fs::path& file : found) add(file);
    } else if (fs::exists(path, error)) {
      add(path);
    } else {
      return absl::NotFoundError(fmt::format("{}: no such file or directory", argument));
    }
  }
  return files;
}

}  // namespace hmo::cli
