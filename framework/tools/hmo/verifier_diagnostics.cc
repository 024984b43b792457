#include "verifier_diagnostics.h"

#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "hmo/pipeline/source_diagnostic.h"

namespace hmo::cli {

std::string FormatVerifierError(const std::string& file, const HloModule& module,
                                const HloVerifierError& error) {
  const std::string message = fmt::format("module '{}': {}", module.name(), error.ToString());
  if (error.line <= 0) return fmt::format("{}: {}", file, message);
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return FormatSourceError(SourceText{file, text.str()},
                           SourcePosition{static_cast<int>(error.line), static_cast<int>(error.column)},
                           message);
}

std::string VerifierErrorPrefix(const std::string& file, const HloVerifierError& error) {
  if (error.line <= 0) return file + ": ";
  return fmt::format("{}:{}:{}: ", file, error.line, error.column);
}

}  // namespace hmo::cli
