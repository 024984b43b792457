#ifndef HMO_PLUGIN_PLUGIN_SEARCH_PATH_H_
#define HMO_PLUGIN_PLUGIN_SEARCH_PATH_H_

// Where the host looks for plugins, in order:
//   1. each --plugin-dir, in the order given;
//   2. each entry of HMO_PLUGIN_PATH (colon-separated);
//   3. the plugin directory of the hmo installation, found relative to the
//      running executable: <exe>/../lib/hmo/plugins (which, in the build
//      tree, is build/lib/hmo/plugins).

#include <filesystem>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hmo {

class PluginSearchPath {
 public:
  // Directories given explicitly (e.g. by --plugin-dir), searched first.
  explicit PluginSearchPath(std::vector<std::filesystem::path> directories = {})
      : directories_(std::move(directories)) {}

  // Builds the full search path: `plugin_dirs`, then the colon-separated
  // entries of `environment_path` (the value of HMO_PLUGIN_PATH, or null),
  // then InstalledPluginDirectories(). Empty entries are skipped and repeats
  // keep their first position.
  static PluginSearchPath Build(std::vector<std::filesystem::path> plugin_dirs,
                                const char* environment_path);

  // Returns the plugin directories of the installation that contains the
  // running executable (those that exist).
  static std::vector<std::filesystem::path> InstalledPluginDirectories();

  const std::vector<std::filesystem::path>& directories() const { return directories_; }

  // Returns every plugin file (a regular file named *.so) in the directories,
  // sorted by name within each directory. A file name found in an earlier
  // directory hides the same name in later ones, so a user's directory can
  // override an installed plugin. Missing directories are skipped.
  std::vector<std::filesystem::path> ListPluginFiles() const;

  // Finds the plugin file `reference` names. A reference containing '/' or
  // ending in ".so" is a path (a relative one is taken relative to
  // `base_directory`); anything else is a plugin name, looked up in each
  // directory as lib<name>.so, libhmo_<name>.so and <name>.so, with '-' also
  // tried as '_'. Returns NotFound listing what was tried.
  absl::StatusOr<std::filesystem::path> Resolve(
      std::string_view reference, const std::filesystem::path& base_directory) const;

 private:
  std::vector<std::filesystem::path> directories_;
};

}  // namespace hmo

#endif  // HMO_PLUGIN_PLUGIN_SEARCH_PATH_H_
