// hmo fmt FILE [-o OUT]: prints an HLO file in canonical form.

#include <cstdio>
#include <string>
#include <vector>

#include "argument_parser.h"
#include "atomic_file.h"
#include "exit_codes.h"
#include "fmt/format.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"
#include "logging_options.h"
#include "spdlog/spdlog.h"
#include "subcommand.h"
#include "text_form_options.h"

namespace hmo::cli {
namespace {

int FmtCommand(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string output;
  LoggingOptions logging;
  TextFormOptions form;
  ArgumentParser parser("hmo fmt FILE [-o OUT] [--long]",
                        "Parses the HLO modules in FILE (several are separated by '// -----' "
                        "lines) and prints them\nin canonical HLO text, to stdout or OUT.");
  parser.SetPositionals("FILE", &files, 1, "the HLO text file to format");
  parser.AddOption("-o,--output", "OUT", &output, "write the result to OUT (atomically)");
  form.AddTo(parser);
  logging.AddTo(parser);
  if (auto exit = ParseArgumentsOrExit(parser, "fmt", args)) return *exit;
  logging.Apply();
  if (files.size() != 1) {
    spdlog::error("fmt takes exactly one FILE, got {}", files.size());
    return kExitUsage;
  }

  auto modules = ParseHloModulesFile(files.front());
  if (!modules.ok()) {
    fmt::print(stderr, "{}\n", std::string(modules.status().message()));
    return kExitFailure;
  }
  std::string text;
  for (size_t i = 0; i < modules->size(); ++i) {
    if (i > 0) text += "\n// -----\n\n";
    text += PrintHloModule(*(*modules)[i], form.PrintOptions());
  }
  if (output.empty()) {
    fmt::print("{}", text);
    return kExitOk;
  }
  absl::Status written = WriteFileAtomically(output, text);
  if (!written.ok()) {
    spdlog::error("{}", std::string(written.message()));
    return kExitFailure;
  }
  return kExitOk;
}

const SubcommandRegistration kFmt{{"fmt", "print an HLO file in canonical form", &FmtCommand}};

}  // namespace
}  // namespace hmo::cli
