#include "npy_header.h"

#include <cctype>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace hmo::npy_internal {
namespace {

// A cursor over the header text with the few token readers the dict needs.
class HeaderReader {
 public:
  explicit HeaderReader(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool ConsumeWord(std::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  std::string_view Rest() const { return AtEnd() ? std::string_view() : text_.substr(pos_); }

  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        fmt::format("malformed header at character {}: {} in \"{}\"", pos_, what, text_));
  }

  absl::StatusOr<std::string> ReadString() {
    SkipSpace();
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string");
    ++pos_;
    std::string value;
    while (!AtEnd() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      value.push_back(text_[pos_++]);
    }
    if (AtEnd()) return Error("unterminated string");
    ++pos_;
    return value;
  }

  absl::StatusOr<int64_t> ReadInteger() {
    SkipSpace();
    const size_t start = pos_;
    int64_t value = 0;
    while (!AtEnd() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (value > (INT64_MAX - 9) / 10) return Error("dimension too large");
      value = value * 10 + (text_[pos_++] - '0');
    }
    if (pos_ == start) return Error("expected a non-negative integer");
    if (Peek() == 'L') ++pos_;  // Python 2 longs, in files old numpy wrote.
    return value;
  }

  absl::StatusOr<std::vector<int64_t>> ReadShapeTuple() {
    if (!Consume('(')) return Error("expected a shape tuple");
    std::vector<int64_t> dims;
    while (!Consume(')')) {
      absl::StatusOr<int64_t> dim = ReadInteger();
      if (!dim.ok()) return dim.status();
      dims.push_back(*dim);
      if (!Consume(',')) {
        if (!Consume(')')) return Error("expected ',' or ')' in the shape");
        break;
      }
    }
    return dims;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<NpyHeader> ParseNpyHeader(std::string_view text) {
  HeaderReader reader(text);
  NpyHeader header;
  bool has_descr = false, has_order = false, has_shape = false;
  if (!reader.Consume('{')) return reader.Error("expected '{'");
  while (!reader.Consume('}')) {
    absl::StatusOr<std::string> key = reader.ReadString();
    if (!key.ok()) return key.status();
    if (!reader.Consume(':')) return reader.Error("expected ':'");
    if (*key == "descr") {
      reader.SkipSpace();
      if (reader.Peek() == '[') {
        return absl::UnimplementedError("structured dtypes are not supported");
      }
      absl::StatusOr<std::string> descr = reader.ReadString();
      if (!descr.ok()) return descr.status();
      header.descr = *descr;
      has_descr = true;
    } else if (*key == "fortran_order") {
      if (reader.ConsumeWord("True")) {
        header.fortran_order = true;
      } else if (reader.ConsumeWord("False")) {
        header.fortran_order = false;
      } else {
        return reader.Error("fortran_order must be True or False");
      }
      has_order = true;
    } else if (*key == "shape") {
      absl::StatusOr<std::vector<int64_t>> shape = reader.ReadShapeTuple();
      if (!shape.ok()) return shape.status();
      header.shape = *std::move(shape);
      has_shape = true;
    } else {
      return reader.Error(fmt::format("unexpected key '{}'", *key));
    }
    if (!reader.Consume(',')) {
      if (!reader.Consume('}')) return reader.Error("expected ',' or '}'");
      break;
    }
  }
  if (!has_descr || !has_order || !has_shape) {
    return reader.Error("the dict needs the keys 'descr', 'fortran_order' and 'shape'");
  }
  reader.SkipSpace();
  if (reader.Peek() == '#') {
    std::string_view comment = reader.Rest().substr(1);
    const size_t newline = comment.find('\n');
    if (newline != std::string_view::npos) comment = comment.substr(0, newline);
    while (!comment.empty() && std::isspace(static_cast<unsigned char>(comment.front()))) {
      comment.remove_prefix(1);
    }
    while (!comment.empty() && std::isspace(static_cast<unsigned char>(comment.back()))) {
      comment.remove_suffix(1);
    }
    header.comment = std::string(comment);
  } else if (!reader.AtEnd()) {
    return reader.Error("unexpected text after the dict");
  }
  return header;
}

std::string FormatNpyHeader(const NpyHeader& header) {
  std::string shape = "(";
  for (size_t i = 0; i < header.shape.size(); ++i) {
    if (i > 0) shape += ", ";
    shape += std::to_string(header.shape[i]);
  }
  // A one-element tuple needs its trailing comma in Python.
  if (header.shape.size() == 1) shape += ",";
  shape += ")";
  std::string text = fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}",
                                 header.descr, header.fortran_order ? "True" : "False", shape);
  if (!header.comment.empty()) text += "  # " + header.comment;
  return text;
}

}  // namespace hmo::npy_internal
