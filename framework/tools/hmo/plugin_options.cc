#include "plugin_options.h"

#include <cstdlib>

#include <filesystem>
#include <system_error>

#include "exit_codes.h"
#include "fmt/format.h"
#include "hmo/builtin_passes/framework_passes.h"

namespace hmo::cli {

void PluginOptions::AddTo(ArgumentParser& parser) {
  parser.AddRepeatedOption("--plugin-dir", "DIR", &plugin_dirs,
                           "also load the plugins in DIR (searched first; repeatable)");
}

PluginSearchPath PluginOptions::SearchPath() const {
  std::vector<std::filesystem::path> directories(plugin_dirs.begin(), plugin_dirs.end());
  return PluginSearchPath::Build(std::move(directories), std::getenv("HMO_PLUGIN_PATH"));
}

absl::Status PluginOptions::CheckDirectories() const {
  for (const std::string& directory : plugin_dirs) {
    std::error_code error;
    if (!std::filesystem::is_directory(directory, error)) {
      return absl::InvalidArgumentError(
          fmt::format("--plugin-dir {}: no such directory", directory));
    }
  }
  return absl::OkStatus();
}

std::optional<int> CheckPluginDirectoriesOrExit(const PluginOptions& options,
                                                std::string_view command) {
  if (absl::Status checked = options.CheckDirectories(); !checked.ok()) {
    fmt::print(stderr, "hmo {}: error: {}\n", command, std::string(checked.message()));
    return kExitUsage;
  }
  return std::nullopt;
}

absl::Status LoadSearchPathPlugins(PluginHost& host, const PluginSearchPath& search_path) {
  // The framework's own passes (e.g. `memory-report`) are available to every
  // pipeline, before any plugin is loaded.
  if (absl::Status builtin = RegisterFrameworkPasses(host.mutable_registries().passes);
      !builtin.ok()) {
    return builtin;
  }
  std::vector<absl::Status> errors = host.LoadAllPlugins(search_path);
  if (errors.empty()) return absl::OkStatus();
  std::vector<std::string> messages;
  for (const absl::Status& error : errors) messages.emplace_back(error.message());
  return absl::Status(errors.front().code(), fmt::format("{}", fmt::join(messages, "\n")));
}

}  // namespace hmo::cli
