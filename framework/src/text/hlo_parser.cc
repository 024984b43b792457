#include "hmo/text/hlo_parser.h"

#include <fstream>
#include <sstream>

#include "hlo_text_parser.h"
#include "hmo/base/input_file.h"

namespace hmo {
namespace {

using text_internal::AbslView;
using text_internal::HloLexer;
using text_internal::Parser;
using text_internal::StrCat;
using text_internal::TokKind;

absl::StatusOr<std::string> ReadFile(std::string_view path) { return ReadInputFile(path); }

// True when source[begin, end) holds no tokens.
bool IsBlank(std::string_view source, size_t begin, size_t end) {
  HloLexer lexer(source, begin, end);
  return lexer.kind() == TokKind::kEof;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string_view text,
                                                          std::string_view filename) {
  Parser parser(text, 0, text.size(), filename);
  return parser.ParseModule();
}

absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> ParseHloModules(std::string_view text,
                                                                        std::string_view filename) {
  std::vector<std::unique_ptr<HloModule>> modules;
  size_t part_begin = 0;
  size_t line_begin = 0;
  auto parse_part = [&](size_t begin, size_t end) -> absl::Status {
    if (IsBlank(text, begin, end)) return absl::OkStatus();
    Parser parser(text, begin, end, filename);
    auto module = parser.ParseModule();
    if (!module.ok()) return module.status();
    modules.push_back(std::move(*module));
    return absl::OkStatus();
  };
  while (line_begin < text.size()) {
    size_t line_end = text.find('\n', line_begin);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_begin, line_end - line_begin);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
      line.remove_suffix(1);
    }
    // Only the exact marker splits; decorative "// ------------" lines do not.
    if (line == "// -----") {
      HMO_RETURN_IF_ERROR(parse_part(part_begin, line_begin));
      part_begin = line_end;
    }
    line_begin = line_end + 1;
  }
  HMO_RETURN_IF_ERROR(parse_part(part_begin, text.size()));
  if (modules.empty()) {
    // XLA refuses an empty module text too; say so at the start of the file.
    return absl::InvalidArgumentError(StrCat(AbslView(filename), ":1:1: error: the file holds no "
                                             "HLO module (it is empty or only comments)\n\n^"));
  }
  return modules;
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFile(std::string_view path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseHloModule(*text, path);
}

absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> ParseHloModulesFile(std::string_view path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseHloModules(*text, path);
}

absl::StatusOr<Shape> ParseShape(std::string_view text) {
  Parser parser(text, 0, text.size(), "<shape>");
  return parser.ParseStandaloneShape();
}

absl::StatusOr<Layout> ParseLayout(std::string_view text) {
  Parser parser(text, 0, text.size(), "<layout>");
  return parser.ParseStandaloneLayout();
}

absl::StatusOr<Literal> ParseLiteral(std::string_view text, const Shape& shape) {
  Parser parser(text, 0, text.size(), "<literal>");
  return parser.ParseStandaloneLiteral(shape);
}

}  // namespace hmo
