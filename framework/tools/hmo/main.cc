// hmo: the HLO memory optimizer's command-line host. Dispatches to the
// subcommands registered in this directory (subcommand.h).

#include <cstdio>
#include <string>
#include <vector>

#include "exit_codes.h"
#include "fmt/format.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/pass/spelling_suggestion.h"
#include "subcommand.h"

namespace {

void PrintOverview(std::FILE* out) {
  fmt::print(out,
             "usage: hmo <command> [arguments]\n\n"
             "hmo {} loads passes, scheduler strategies and backends from plugins and runs them\n"
             "on HLO modules as a pipeline describes.\n\ncommands:\n",
             HMO_FRAMEWORK_VERSION);
  size_t width = 0;
  for (const hmo::cli::Subcommand& command : hmo::cli::Subcommands()) {
    width = std::max(width, command.name.size());
  }
  for (const hmo::cli::Subcommand& command : hmo::cli::Subcommands()) {
    fmt::print(out, "  {:<{}}  {}\n", command.name, width, command.summary);
  }
  fmt::print(out, "\nRun 'hmo <command> --help' for a command's arguments.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintOverview(stderr);
    return hmo::cli::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    PrintOverview(stdout);
    return hmo::cli::kExitOk;
  }
  if (name == "--version") {
    fmt::print("hmo {}\n", HMO_FRAMEWORK_VERSION);
    return hmo::cli::kExitOk;
  }
  std::vector<std::string> names;
  for (const hmo::cli::Subcommand& command : hmo::cli::Subcommands()) {
    if (command.name == name) {
      return command.run(std::vector<std::string>(argv + 2, argv + argc));
    }
    names.emplace_back(command.name);
  }
  fmt::print(stderr, "hmo: error: unknown command '{}'{}; run 'hmo --help' for the list\n", name,
             hmo::DidYouMean(name, names));
  return hmo::cli::kExitUsage;
}
