#ifndef HMO_TOOLS_HMO_PLUGIN_OPTIONS_H_
#define HMO_TOOLS_HMO_PLUGIN_OPTIONS_H_

// --plugin-dir (repeatable), and loading every plugin of the search path
// (--plugin-dir, then HMO_PLUGIN_PATH, then the installation's plugins).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "argument_parser.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/plugin/plugin_search_path.h"

namespace hmo::cli {

struct PluginOptions {
  std::vector<std::string> plugin_dirs;

  void AddTo(ArgumentParser& parser);
  // The search path these options and the environment give.
  PluginSearchPath SearchPath() const;
  // Every --plugin-dir names an existing directory (else the error names
  // it): a misspelt one would silently load nothing.
  absl::Status CheckDirectories() const;
};

// CheckDirectories; on failure prints "hmo COMMAND: error: ..." and returns
// the usage exit code.
std::optional<int> CheckPluginDirectoriesOrExit(const PluginOptions& options,
                                                std::string_view command);

// Loads every plugin in `search_path` into `host`. Returns the failures, one
// per line, as one error; the plugins that loaded stay loaded.
absl::Status LoadSearchPathPlugins(PluginHost& host, const PluginSearchPath& search_path);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_PLUGIN_OPTIONS_H_
