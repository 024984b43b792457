// hmo passes [NAME...]: lists the passes the plugins provide, with their
// options.

#include <cstdio>
#include <string>
#include <vector>

#include "argument_parser.h"
#include "exit_codes.h"
#include "fmt/format.h"
#include "hmo/pass/spelling_suggestion.h"
#include "logging_options.h"
#include "plugin_options.h"
#include "subcommand.h"

namespace hmo::cli {
namespace {

void PrintOptions(const PassOptionSchema& options) {
  for (const PassOptionSpec& spec : options.specs()) {
    const std::string value = spec.required ? std::string("required")
                                            : fmt::format("default {}",
                                                          FormatPassOptionValue(*spec.default_value));
    const std::string type = spec.allowed_values.empty()
                                 ? std::string(PassOptionTypeName(spec.type))
                                 : fmt::format("one of {}", fmt::join(spec.allowed_values, " | "));
    fmt::print("    {}: {} ({})\n        {}\n", spec.key, type, value, spec.help);
  }
}

void PrintPass(const RegisteredPass& pass) {
  const PassRegistration& registration = pass.registration;
  fmt::print("{}  (plugin {})\n  {}\n", registration.name, pass.plugin, registration.description);
  PrintOptions(registration.options);
}

// A scheduler strategy, with the options it declares (forwarded by
// memory-scheduler's strategy-options as NAME.key=value).
void PrintStrategy(const RegisteredSchedulerStrategy& strategy) {
  const SchedulerStrategyRegistration& registration = strategy.registration;
  fmt::print("{}  (scheduler strategy, plugin {})\n  {}\n", registration.name, strategy.plugin,
             registration.description);
  if (!registration.options.has_value()) {
    fmt::print("    (declares no options: takes what strategy-options forwards, unchecked)\n");
  } else if (registration.options->specs().empty()) {
    fmt::print("    (takes no options)\n");
  } else {
    PrintOptions(*registration.options);
  }
}

int PassesCommand(const std::vector<std::string>& args) {
  std::vector<std::string> names;
  PluginOptions plugin_options;
  LoggingOptions logging;
  ArgumentParser parser("hmo passes [NAME...] [--plugin-dir DIR]...",
                        "Lists the passes the loaded plugins provide (or only those named), "
                        "with each option's\ntype, default and help, as pipelines use them: "
                        "NAME{key=value,list=[a,b]}; then the\nscheduler strategies and the "
                        "options each declares, which memory-scheduler forwards as\n"
                        "strategy-options=[NAME.key=value].");
  parser.SetPositionals("NAME...", &names, 0, "only show these passes or strategies");
  plugin_options.AddTo(parser);
  logging.AddTo(parser);
  if (auto exit = ParseArgumentsOrExit(parser, "passes", args)) return *exit;
  if (auto exit = CheckPluginDirectoriesOrExit(plugin_options, "passes")) return *exit;
  logging.Apply();

  PluginHost host;
  absl::Status loaded = LoadSearchPathPlugins(host, plugin_options.SearchPath());
  if (!loaded.ok()) {
    fmt::print(stderr, "hmo passes: error: {}\n", std::string(loaded.message()));
    return kExitFailure;
  }
  const PassRegistry& passes = host.registries().passes;
  const SchedulerStrategyRegistry& strategies = host.registries().strategies;
  if (names.empty()) {
    if (passes.List().empty()) fmt::print("no passes are loaded\n");
    for (const RegisteredPass* pass : passes.List()) PrintPass(*pass);
    if (!strategies.List().empty()) fmt::print("\nscheduler strategies:\n\n");
    for (const RegisteredSchedulerStrategy* strategy : strategies.List()) PrintStrategy(*strategy);
    return kExitOk;
  }
  int status = kExitOk;
  for (const std::string& name : names) {
    if (const RegisteredPass* pass = passes.Find(name)) {
      PrintPass(*pass);
      continue;
    }
    if (const RegisteredSchedulerStrategy* strategy = strategies.Find(name)) {
      PrintStrategy(*strategy);
      continue;
    }
    std::vector<std::string> known = passes.Names();
    for (const std::string& strategy : strategies.Names()) known.push_back(strategy);
    fmt::print(stderr, "hmo passes: error: unknown pass or strategy '{}'{}\n", name,
               DidYouMean(name, known));
    status = kExitFailure;
  }
  return status;
}

const SubcommandRegistration kPasses{
    {"passes", "list the available passes and their options", &PassesCommand}};

}  // namespace
}  // namespace hmo::cli
