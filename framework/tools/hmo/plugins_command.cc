// hmo plugins: lists the plugin search path and what each loaded plugin
// registered.

#include <cstdio>
#include <string>
#include <vector>

#include "argument_parser.h"
#include "exit_codes.h"
#include "fmt/format.h"
#include "logging_options.h"
#include "plugin_options.h"
#include "subcommand.h"

namespace hmo::cli {
namespace {

void PrintNames(std::string_view kind, const std::vector<std::string>& names) {
  if (names.empty()) return;
  fmt::print("  {:<12} {}\n", fmt::format("{}:", kind), fmt::join(names, ", "));
}

int PluginsCommand(const std::vector<std::string>& args) {
  PluginOptions plugin_options;
  LoggingOptions logging;
  ArgumentParser parser("hmo plugins [--plugin-dir DIR]...",
                        "Loads every plugin on the search path (--plugin-dir, HMO_PLUGIN_PATH, "
                        "the installation's\nplugin directory) and lists each plugin's file, "
                        "version and what it registered.\nExits 1 when a plugin fails to load, "
                        "after listing the others.");
  plugin_options.AddTo(parser);
  logging.AddTo(parser);
  if (auto exit = ParseArgumentsOrExit(parser, "plugins", args)) return *exit;
  if (auto exit = CheckPluginDirectoriesOrExit(plugin_options, "plugins")) return *exit;
  logging.Apply();

  const PluginSearchPath search_path = plugin_options.SearchPath();
  PluginHost host;
  absl::Status loaded = LoadSearchPathPlugins(host, search_path);

  fmt::print("search path:\n");
  for (const auto& directory : search_path.directories()) fmt::print("  {}\n", directory.string());
  if (search_path.directories().empty()) fmt::print("  (none)\n");
  fmt::print("\n{} plugin{} loaded\n", host.plugins().size(), host.plugins().size() == 1 ? "" : "s");
  for (const LoadedPlugin& plugin : host.plugins()) {
    fmt::print("\n{} {} ({} plugin, ABI {}.{})\n  {:<12} {}\n", plugin.name, plugin.version,
               plugin.cxx ? "C++" : "C", plugin.abi_major, plugin.abi_minor, "file:",
               plugin.file.string());
    PrintNames("passes", plugin.passes);
    PrintNames("strategies", plugin.strategies);
    PrintNames("backends", plugin.backends);
    PrintNames("analyses", plugin.analyses);
  }
  if (!loaded.ok()) {
    fmt::print(stderr, "hmo plugins: error: {}\n", std::string(loaded.message()));
    return kExitFailure;
  }
  return kExitOk;
}

const SubcommandRegistration kPlugins{
    {"plugins", "list loaded plugins and what they registered", &PluginsCommand}};

}  // namespace
}  // namespace hmo::cli
