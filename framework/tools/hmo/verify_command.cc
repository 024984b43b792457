// hmo verify FILE...: parses HLO files and runs the verifier on each module.

#include <cstdio>
#include <string>
#include <vector>

#include "argument_parser.h"
#include "exit_codes.h"
#include "fmt/format.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "logging_options.h"
#include "subcommand.h"
#include "verifier_diagnostics.h"

namespace hmo::cli {
namespace {

int VerifyCommand(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  bool layout_sensitive = false;
  LoggingOptions logging;
  ArgumentParser parser("hmo verify FILE... [--layout-sensitive]",
                        "Parses each FILE and verifies its modules. Prints 'FILE: ok' for a "
                        "valid file and every\nverifier error otherwise; exits 1 when any file "
                        "fails to parse or verify.");
  parser.SetPositionals("FILE...", &files, 1, "HLO text files to verify");
  parser.AddFlag("--layout-sensitive", &layout_sensitive,
                 "also compare layouts where buffers are forwarded");
  logging.AddTo(parser);
  if (auto exit = ParseArgumentsOrExit(parser, "verify", args)) return *exit;
  logging.Apply();

  HloVerifierOptions options;
  options.layout_sensitive = layout_sensitive;
  bool all_ok = true;
  for (const std::string& file : files) {
    auto modules = ParseHloModulesFile(file);
    if (!modules.ok()) {
      fmt::print(stderr, "{}\n", std::string(modules.status().message()));
      all_ok = false;
      continue;
    }
    bool file_ok = true;
    for (const auto& module : *modules) {
      for (const HloVerifierError& error : CollectVerifierErrors(*module, options)) {
        fmt::print(stderr, "{}\n", FormatVerifierError(file, *module, error));
        file_ok = false;
      }
    }
    if (file_ok) fmt::print("{}: ok\n", file);
    all_ok = all_ok && file_ok;
  }
  return all_ok ? kExitOk : kExitFailure;
}

const SubcommandRegistration kVerify{
    {"verify", "check that HLO files are well formed", &VerifyCommand}};

}  // namespace
}  // namespace hmo::cli
