#include "hmo/plugin/plugin_search_path.h"

#include <algorithm>
#include <set>
#include <string>

#include <boost/dll/runtime_symbol_info.hpp>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace hmo {
namespace fs = std::filesystem;

namespace {

void AppendUnique(std::vector<fs::path>& directories, const fs::path& directory) {
  if (directory.empty()) return;
  fs::path normal = directory.lexically_normal();
  if (normal.has_parent_path() && normal.filename().empty()) normal = normal.parent_path();
  if (std::find(directories.begin(), directories.end(), normal) == directories.end()) {
    directories.push_back(normal);
  }
}

}  // namespace

PluginSearchPath PluginSearchPath::Build(std::vector<fs::path> plugin_dirs,
                                         const char* environment_path) {
  std::vector<fs::path> directories;
  for (const fs::path& directory : plugin_dirs) AppendUnique(directories, directory);
  if (environment_path != nullptr) {
    std::string_view rest = environment_path;
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      AppendUnique(directories, fs::path(rest.substr(0, colon)));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  for (const fs::path& directory : InstalledPluginDirectories()) {
    AppendUnique(directories, directory);
  }
  return PluginSearchPath(std::move(directories));
}

std::vector<fs::path> PluginSearchPath::InstalledPluginDirectories() {
  boost::dll::fs::error_code error;
  const fs::path executable = boost::dll::program_location(error);
  if (error) return {};
  const fs::path prefix = executable.parent_path().parent_path();
  std::vector<fs::path> directories;
  std::error_code fs_error;
  // The configured install layout first, then the build tree's (the same
  // unless the library directory is not "lib").
  for (const fs::path& candidate :
       {prefix / HMO_INSTALL_PLUGIN_DIR, prefix / "lib" / "hmo" / "plugins"}) {
    if (fs::is_directory(candidate, fs_error)) AppendUnique(directories, candidate);
  }
  return directories;
}

std::vector<fs::path> PluginSearchPath::ListPluginFiles() const {
  std::vector<fs::path> files;
  std::set<fs::path> seen_names;
  for (const fs::path& directory : directories_) {
    std::error_code error;
    std::vector<fs::path> in_directory;
    for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
      if (entry.path().extension() == ".so" && entry.is_regular_file(error)) {
        in_directory.push_back(entry.path());
      }
    }
    std::sort(in_directory.begin(), in_directory.end());
    for (const fs::path& file : in_directory) {
      if (seen_names.insert(file.filename()).second) files.push_back(file);
    }
  }
  return files;
}

absl::StatusOr<fs::path> PluginSearchPath::Resolve(std::string_view reference,
                                                   const fs::path& base_directory) const {
  std::error_code error;
  if (reference.find('/') != std::string_view::npos || reference.ends_with(".so")) {
    fs::path path(reference);
    if (path.is_relative()) path = base_directory / path;
    if (fs::is_regular_file(path, error)) return path;
    return absl::NotFoundError(fmt::format("plugin file '{}' not found", path.string()));
  }
  std::string underscored(reference);
  std::replace(underscored.begin(), underscored.end(), '-', '_');
  std::vector<std::string> names;
  for (const std::string& stem : {std::string(reference), underscored}) {
    for (const std::string& name : {fmt::format("lib{}.so", stem),
                                    fmt::format("libhmo_{}.so", stem), fmt::format("{}.so", stem)}) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  for (const fs::path& directory : directories_) {
    for (const std::string& name : names) {
      if (fs::is_regular_file(directory / name, error)) return directory / name;
    }
  }
  std::vector<std::string> directories;
  for (const fs::path& directory : directories_) directories.push_back(directory.string());
  return absl::NotFoundError(fmt::format(
      "plugin '{}' not found (looked for {} in {})", reference, fmt::join(names, ", "),
      directories.empty() ? std::string("no directories")
                          : fmt::format("{}", fmt::join(directories, ", "))));
}

}  // namespace hmo
