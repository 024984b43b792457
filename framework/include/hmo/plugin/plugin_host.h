#ifndef HMO_PLUGIN_PLUGIN_HOST_H_
#define HMO_PLUGIN_PLUGIN_HOST_H_

// Loads plugins and collects what they register.
//
// Loading a plugin opens it (plugin_library.h), then calls its registration
// callbacks in HmoPluginInfo order: passes, scheduler strategies, backends,
// analyses, C passes. Loading is single-threaded; afterwards the registries are only
// read and may be shared by any number of threads.

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/plugin_registries.h"
#include "hmo/plugin/plugin_search_path.h"

namespace hmo {

// One loaded plugin, as `hmo plugins` shows it.
struct LoadedPlugin {
  std::filesystem::path file;  // canonical
  std::string name;
  std::string version;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  // True for a C++ plugin (it has a build fingerprint); false for a C plugin.
  bool cxx = false;
  // What it registered, in registration order (C passes after C++ ones).
  std::vector<std::string> passes;
  std::vector<std::string> strategies;
  std::vector<std::string> backends;
  std::vector<std::string> analyses;
};

class PluginHost {
 public:
  PluginHost() = default;
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  // Loads the plugin in `file` and registers what it provides. Loading a file
  // this host already loaded does nothing. Errors (each message starts with
  // the file): those of OpenPluginLibrary; a plugin name already loaded from
  // another file (naming it); a failing registration callback (with the
  // callback's name and message); a pass, strategy, backend or analysis name
  // already registered (naming both plugins), even when the plugin ignored
  // that error. A plugin loads whole or not at all: after an error nothing it
  // registered stays registered and it is not among plugins().
  absl::Status LoadPlugin(const std::filesystem::path& file);

  // Finds `reference` (a name or path, see PluginSearchPath::Resolve) in
  // `search_path` and loads it.
  absl::Status LoadPluginReference(std::string_view reference,
                                   const PluginSearchPath& search_path,
                                   const std::filesystem::path& base_directory);

  // Loads every plugin file in `search_path`. Tries them all and returns the
  // errors of those that failed (one per file); empty when all loaded.
  std::vector<absl::Status> LoadAllPlugins(const PluginSearchPath& search_path);

  const PluginRegistries& registries() const { return registries_; }
  // For registering the framework's own (or a test's) providers directly.
  PluginRegistries& mutable_registries() { return registries_; }

  // The loaded plugins, in load order.
  const std::vector<LoadedPlugin>& plugins() const { return plugins_; }

 private:
  // Runs the plugin's registration callbacks in order, recording what each
  // registered in `plugin`; stops at the first failure.
  absl::Status RunRegistrations(const std::filesystem::path& file, const HmoPluginInfo& info,
                                LoadedPlugin& plugin);

  PluginRegistries registries_;
  std::vector<LoadedPlugin> plugins_;
};

}  // namespace hmo

#endif  // HMO_PLUGIN_PLUGIN_HOST_H_
