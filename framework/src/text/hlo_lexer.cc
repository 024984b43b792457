#include "hlo_lexer.h"

namespace hmo::text_internal {
namespace {

inline bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsNameChar(char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

HloLexer::HloLexer(std::string_view source, size_t begin, size_t end)
    : source_(source), end_(end), pos_(begin), prev_end_(begin) {
  Lex();
}

Token HloLexer::Next() {
  Token t = cur_;
  prev_end_ = t.end();
  Lex();
  return t;
}

void HloLexer::Reset(size_t offset) {
  pos_ = offset;
  Lex();
}

void HloLexer::SkipTo(size_t offset) {
  prev_end_ = offset;
  pos_ = offset;
  Lex();
}

bool HloLexer::CurrentStartsNewLine() const {
  for (size_t i = prev_end_; i < cur_.offset && i < end_; ++i) {
    if (source_[i] == '\n' || source_[i] == '\r') return true;
  }
  return false;
}

bool HloLexer::NextCharIs(char c) const {
  size_t e = cur_.end();
  return e < end_ && source_[e] == c;
}

bool HloLexer::CurrentStartsWith(std::string_view s) const {
  return cur_.offset + s.size() <= end_ && source_.substr(cur_.offset, s.size()) == s;
}

std::string_view HloLexer::ScanRawUntil(std::string_view stops) {
  size_t start = cur_.offset;
  size_t i = start;
  while (i < end_ && !IsSpace(source_[i]) && stops.find(source_[i]) == std::string_view::npos) ++i;
  prev_end_ = i;
  pos_ = i;
  Lex();
  return source_.substr(start, i - start);
}

bool HloLexer::ScanBalanced(std::string_view* inside) {
  size_t start = cur_.offset;
  int depth = 0;
  size_t i = start;
  while (i < end_) {
    char c = source_[i];
    if (c == '"') {
      ++i;
      while (i < end_ && source_[i] != '"') {
        if (source_[i] == '\\') ++i;
        ++i;
      }
    } else if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      if (--depth == 0) {
        *inside = source_.substr(start + 1, i - start - 1);
        prev_end_ = i + 1;
        pos_ = i + 1;
        Lex();
        return true;
      }
    }
    ++i;
  }
  return false;
}

void HloLexer::SkipSpaceAndComments() {
  while (pos_ < end_) {
    char c = source_[pos_];
    if (IsSpace(c)) {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < end_ && source_[pos_ + 1] == '/') {
      // A line comment ends at any line ending: \n, \r\n or a lone \r.
      while (pos_ < end_ && source_[pos_] != '\n' && source_[pos_] != '\r') ++pos_;
    } else if (c == '/' && pos_ + 1 < end_ && source_[pos_ + 1] == '*') {
      size_t close = source_.find("*/", pos_ + 2);
      if (close == std::string_view::npos || close + 2 > end_) return;  // reported by Lex
      pos_ = close + 2;
    } else {
      return;
    }
  }
}

void HloLexer::Lex() {
  SkipSpaceAndComments();
  cur_.offset = pos_;
  if (pos_ >= end_) {
    cur_.kind = TokKind::kEof;
    cur_.text = std::string_view();
    return;
  }
  const size_t start = pos_;
  const char c = source_[pos_];
  auto finish = [&](TokKind kind, size_t len) {
    cur_.kind = kind;
    cur_.text = source_.substr(start, len);
    pos_ = start + len;
  };
  auto match_word = [&](size_t at, std::string_view w) {
    if (at + w.size() > end_ || source_.substr(at, w.size()) != w) return false;
    return at + w.size() >= end_ || !IsNameChar(source_[at + w.size()]);
  };
  if (c == '/' && pos_ + 1 < end_ && source_[pos_ + 1] == '*') {
    cur_.kind = TokKind::kError;
    cur_.text = "unterminated /* comment";
    pos_ = end_;
    return;
  }
  if (IsNameStart(c) || (c == '%' && pos_ + 1 < end_ && (IsNameChar(source_[pos_ + 1])))) {
    size_t i = pos_ + 1;
    while (i < end_ && IsNameChar(source_[i])) {
      if (source_[i] == '-' && i + 1 < end_ && source_[i + 1] == '>') break;
      ++i;
    }
    finish(TokKind::kName, i - start);
    return;
  }
  if (IsDigit(c) || (c == '-' && pos_ + 1 < end_ && IsDigit(source_[pos_ + 1]))) {
    size_t i = pos_ + 1;
    while (i < end_ && IsDigit(source_[i])) ++i;
    bool is_float = false;
    if (i < end_ && source_[i] == '.' && i + 1 < end_ && IsDigit(source_[i + 1])) {
      is_float = true;
      ++i;
      while (i < end_ && IsDigit(source_[i])) ++i;
    } else if (i < end_ && source_[i] == '.' && (i + 1 >= end_ || !IsNameChar(source_[i + 1]))) {
      is_float = true;  // "1."
      ++i;
    }
    if (i < end_ && (source_[i] == 'e' || source_[i] == 'E')) {
      size_t j = i + 1;
      if (j < end_ && (source_[j] == '+' || source_[j] == '-')) ++j;
      if (j < end_ && IsDigit(source_[j])) {
        is_float = true;
        i = j;
        while (i < end_ && IsDigit(source_[i])) ++i;
      }
    }
    finish(is_float ? TokKind::kFloat : TokKind::kInt, i - start);
    return;
  }
  if (c == '-' && (match_word(pos_ + 1, "inf") || match_word(pos_ + 1, "nan"))) {
    finish(TokKind::kFloat, 4);
    return;
  }
  if (c == '"') {
    size_t i = pos_ + 1;
    while (i < end_ && source_[i] != '"') {
      if (source_[i] == '\\') ++i;
      ++i;
    }
    if (i >= end_) {
      cur_.kind = TokKind::kError;
      cur_.text = "unterminated string";
      pos_ = end_;
      return;
    }
    finish(TokKind::kString, i + 1 - start);
    return;
  }
  switch (c) {
    case '{': finish(TokKind::kLbrace, 1); return;
    case '}': finish(TokKind::kRbrace, 1); return;
    case '(': finish(TokKind::kLparen, 1); return;
    case ')': finish(TokKind::kRparen, 1); return;
    case '[': finish(TokKind::kLsquare, 1); return;
    case ']': finish(TokKind::kRsquare, 1); return;
    case ',': finish(TokKind::kComma, 1); return;
    case ':': finish(TokKind::kColon, 1); return;
    case '=': finish(TokKind::kEqual, 1); return;
    case '-':
      if (pos_ + 1 < end_ && source_[pos_ + 1] == '>') {
        finish(TokKind::kArrow, 2);
        return;
      }
      break;
    case '<':
      if (pos_ + 1 < end_ && source_[pos_ + 1] == '=') {
        finish(TokKind::kLeq, 2);
        return;
      }
      break;
    default:
      break;
  }
  finish(TokKind::kOther, 1);
}

}  // namespace hmo::text_internal
