#include "hmo/pipeline/source_diagnostic.h"

#include "fmt/format.h"

namespace hmo {
namespace {

std::string_view LineAt(std::string_view text, int line) {
  size_t start = 0;
  for (int current = 1; current < line; ++current) {
    const size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) return {};
    start = newline + 1;
  }
  const size_t end = text.find('\n', start);
  std::string_view result = text.substr(start, end == std::string_view::npos ? end : end - start);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

}  // namespace

std::string FormatSourceError(const SourceText& source, SourcePosition position,
                              std::string_view message) {
  if (position.line <= 0) return fmt::format("{}: error: {}", source.filename, message);
  const int column = position.column > 0 ? position.column : 1;
  std::string result =
      fmt::format("{}:{}:{}: error: {}", source.filename, position.line, column, message);
  const std::string_view line = LineAt(source.text, position.line);
  std::string caret;
  for (int i = 0; i + 1 < column; ++i) {
    caret += i < static_cast<int>(line.size()) && line[i] == '\t' ? '\t' : ' ';
  }
  caret += '^';
  fmt::format_to(std::back_inserter(result), "\n{}\n{}", line, caret);
  return result;
}

absl::Status SourceError(const SourceText& source, SourcePosition position,
                         std::string_view message) {
  return absl::InvalidArgumentError(FormatSourceError(source, position, message));
}

}  // namespace hmo
