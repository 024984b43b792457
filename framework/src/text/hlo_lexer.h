#ifndef HMO_SRC_TEXT_HLO_LEXER_H_
#define HMO_SRC_TEXT_HLO_LEXER_H_

// Hand-written lexer over HLO text (internal to the parser). Tokens are
// views into the source; comments (`//` to end of line, `/* */`) are
// skipped. Context-dependent values (dim_labels, padding, window fields) are
// read with ScanRaw* by the parser instead of being tokenized.

#include <cstddef>
#include <string_view>

namespace hmo::text_internal {

enum class TokKind {
  kEof,
  kName,    // [%]?[A-Za-z_][A-Za-z0-9_.-]* (a '-' before '>' ends the name)
  kInt,     // -?[0-9]+
  kFloat,   // -?digits with '.' or exponent; also -inf / -nan
  kString,  // "..." with backslash escapes; text includes the quotes
  kLbrace,
  kRbrace,
  kLparen,
  kRparen,
  kLsquare,
  kRsquare,
  kComma,
  kColon,
  kEqual,
  kArrow,  // ->
  kLeq,    // <=
  kOther,  // any other single character
  kError,  // unterminated string or comment; text is the message
};

struct Token {
  TokKind kind = TokKind::kEof;
  std::string_view text;
  size_t offset = 0;  // byte offset in the full source text
  size_t end() const { return offset + text.size(); }
};

class HloLexer {
 public:
  // Lexes source[begin, end).
  HloLexer(std::string_view source, size_t begin, size_t end);

  const Token& Peek() const { return cur_; }
  TokKind kind() const { return cur_.kind; }
  // Returns the current token and lexes the next.
  Token Next();
  // End offset of the most recently consumed token.
  size_t prev_end() const { return prev_end_; }

  // True if a newline lies between the previous token's end and the current
  // token (used to end verbatim attribute values at a line break).
  bool CurrentStartsNewLine() const;

  // Raw scan starting at the current token's offset: the longest run of
  // characters not in `stops` (whitespace always stops). Returns the run
  // (possibly empty) and re-lexes after it.
  std::string_view ScanRawUntil(std::string_view stops);
  // Raw scan from the current token (which must be an opening bracket
  // '{', '(' or '[') to its matching closer, skipping strings; returns the
  // text strictly inside and re-lexes after the closer. Returns false on a
  // missing closer.
  bool ScanBalanced(std::string_view* inside);
  // Whether the character right after the current token is `c`.
  bool NextCharIs(char c) const;
  // Whether the source at the current token's offset starts with `s`.
  bool CurrentStartsWith(std::string_view s) const;
  // Re-positions at `offset` and lexes.
  void Reset(size_t offset);
  // Consumes the source up to `offset` (as if its tokens had been read) and
  // lexes from there.
  void SkipTo(size_t offset);
  // End of the lexed range.
  size_t end() const { return end_; }

  std::string_view source() const { return source_; }

 private:
  void Lex();
  void SkipSpaceAndComments();

  std::string_view source_;
  size_t end_;
  size_t pos_;
  size_t prev_end_;
  Token cur_;
};

}  // namespace hmo::text_internal

#endif  // HMO_SRC_TEXT_HLO_LEXER_H_
