// The HLO text parser: errors with positions, and the basic values (integers,
// booleans, strings, integer lists, names, raw attribute values).

#include "hlo_text_parser.h"

namespace hmo::text_internal {

// ------------------------------------------------------------------ errors

absl::Status Parser::Error(size_t offset, std::string_view message) const {
  if (offset > src_.size()) offset = src_.size();
  // Lines end at \n, \r\n or a lone \r.
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (src_[i] == '\n' || (src_[i] == '\r' && (i + 1 >= src_.size() || src_[i + 1] != '\n'))) {
      ++line;
      line_start = i + 1;
    }
  }
  size_t line_end = src_.find_first_of("\r\n", offset);
  if (line_end == std::string_view::npos) line_end = src_.size();
  std::string_view line_text = src_.substr(line_start, line_end - line_start);
  size_t col = offset - line_start + 1;
  return absl::InvalidArgumentError(
      StrCat(AbslView(filename_), ":", line, ":", col, ": error: ", AbslView(message), "\n",
             AbslView(line_text), "\n", std::string(col - 1, ' '), "^"));
}

std::string Parser::Describe(const Token& t) const {
  if (t.kind == TokKind::kEof) return "end of input";
  if (t.kind == TokKind::kError) return std::string(t.text);
  std::string_view text = t.text;
  if (text.size() > 40) return StrCat("'", AbslView(text.substr(0, 40)), "...'");
  return StrCat("'", AbslView(text), "'");
}

absl::Status Parser::Unexpected(std::string_view what) const {
  // A lexical error (unterminated string/comment) explains itself.
  if (lexer_.kind() == TokKind::kError) return ErrorHere(lexer_.Peek().text);
  return ErrorHere(StrCat("expected ", AbslView(what), ", got ", Describe(lexer_.Peek())));
}

absl::Status Parser::Expect(TokKind kind, std::string_view what) {
  if (lexer_.kind() != kind) return Unexpected(what);
  lexer_.Next();
  return absl::OkStatus();
}

// ------------------------------------------------------------- basic values

absl::Status Parser::ParseInt(int64_t* value) {
  if (lexer_.kind() != TokKind::kInt) return Unexpected("an integer");
  std::string_view t = lexer_.Peek().text;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *value);
  if (ec != std::errc() || ptr != t.data() + t.size()) {
    return ErrorHere(StrCat("integer ", AbslView(t), " is out of range"));
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseBool(bool* value) {
  if (AtName("true")) {
    *value = true;
  } else if (AtName("false")) {
    *value = false;
  } else {
    return Unexpected("true or false");
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseString(std::string* value) {
  if (lexer_.kind() != TokKind::kString) return Unexpected("a string");
  std::string_view t = lexer_.Peek().text;
  std::string error;
  if (!absl::CUnescape(AbslView(t.substr(1, t.size() - 2)), value, &error)) {
    return ErrorHere(StrCat("bad string escape: ", error));
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseIntList(std::vector<int64_t>* values) {
  values->clear();
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!values->empty()) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or '}'"));
    }
    int64_t v;
    HMO_RETURN_IF_ERROR(ParseInt(&v));
    values->push_back(v);
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseShapeIndex(ShapeIndex* index) { return ParseIntList(index); }

absl::Status Parser::ParseName(std::string_view what, std::string_view* name) {
  if (lexer_.kind() != TokKind::kName) return Unexpected(what);
  *name = StripPercent(lexer_.Next().text);
  return absl::OkStatus();
}

// A verbatim value: tokens up to a ',' or closing bracket at depth 0, or up
// to the first token on a new line at depth 0.
absl::Status Parser::ParseRawValue(std::string* value) {
  const size_t start = lexer_.Peek().offset;
  size_t end = start;
  int depth = 0;
  bool first = true;
  while (true) {
    const Token& t = lexer_.Peek();
    if (t.kind == TokKind::kEof) break;
    if (t.kind == TokKind::kError) return ErrorHere(t.text);
    if (depth == 0 && !first) {
      if (t.kind == TokKind::kComma || t.kind == TokKind::kRbrace || t.kind == TokKind::kRparen ||
          t.kind == TokKind::kRsquare || lexer_.CurrentStartsNewLine()) {
        break;
      }
    }
    if (depth == 0 && first &&
        (t.kind == TokKind::kComma || t.kind == TokKind::kRbrace || t.kind == TokKind::kRparen)) {
      break;
    }
    if (t.kind == TokKind::kLbrace || t.kind == TokKind::kLparen || t.kind == TokKind::kLsquare) {
      ++depth;
    } else if (t.kind == TokKind::kRbrace || t.kind == TokKind::kRparen ||
               t.kind == TokKind::kRsquare) {
      --depth;
    }
    end = t.end();
    lexer_.Next();
    first = false;
  }
  if (end == start) return Unexpected("an attribute value");
  if (depth != 0) return Error(start, "unbalanced brackets in attribute value");
  value->assign(src_.data() + start, end - start);
  return absl::OkStatus();
}

}  // namespace hmo::text_internal
