#include "hmo/text/hlo_parser.h"
#include "../ir/str_cat.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "hlo_attribute_order.h"
#include "hlo_instruction_checks.h"
#include "hlo_lexer.h"
#include "parsed_shape_inference.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;
namespace {

using text_internal::AttributeRank;
using text_internal::HloLexer;
using text_internal::TokKind;
using text_internal::Token;

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }
std::string_view StdView(absl::string_view s) { return std::string_view(s.data(), s.size()); }

std::string_view StripPercent(std::string_view name) {
  return !name.empty() && name[0] == '%' ? name.substr(1) : name;
}

// A reference to a computation by name, resolved once the whole module has
// been read (callees may be written after their callers).
struct PendingCall {
  HloInstruction* instruction;
  size_t slot;
  std::string_view name;
  size_t offset;
};

// Computation references of one instruction, by attribute.
struct CallRefs {
  struct Ref {
    std::string_view name;
    size_t offset;
  };
  std::vector<std::pair<std::string_view, std::vector<Ref>>> by_attr;
  const std::vector<Ref>* Get(std::string_view attr) const {
    for (const auto& [name, refs] : by_attr) {
      if (name == attr) return &refs;
    }
    return nullptr;
  }
};

class Parser {
 public:
  Parser(std::string_view source, size_t begin, size_t end, std::string_view filename)
      : src_(source), lexer_(source, begin, end), filename_(filename) {}

  absl::StatusOr<std::unique_ptr<HloModule>> ParseModule();
  absl::StatusOr<Shape> ParseStandaloneShape();
  absl::StatusOr<Layout> ParseStandaloneLayout();
  absl::StatusOr<Literal> ParseStandaloneLiteral(const Shape& shape);

 private:
  // ------------------------------------------------------------ errors
  absl::Status Error(size_t offset, std::string_view message) const;
  absl::Status ErrorHere(std::string_view message) const { return Error(lexer_.Peek().offset, message); }
  std::string Describe(const Token& t) const;
  // "expected <what>, got <current token>".
  absl::Status Unexpected(std::string_view what) const;
  absl::Status Expect(TokKind kind, std::string_view what);
  bool TryConsume(TokKind kind) {
    if (lexer_.kind() != kind) return false;
    lexer_.Next();
    return true;
  }
  bool AtName(std::string_view text) const {
    return lexer_.kind() == TokKind::kName && lexer_.Peek().text == text;
  }

  // --------------------------------------------------------- structure
  absl::Status ParseModuleAttribute();
  absl::Status ParseComputation();
  absl::Status ParseComputationBody(std::string_view name, size_t name_offset, int64_t signature_params,
                                    std::unique_ptr<HloComputation>* out);
  absl::Status ParseSignature(int64_t* parameter_count, Shape* result);
  absl::Status ParseInstruction(HloComputation* computation, HloInstruction** root,
                                size_t* root_offset);
  // `[shape] opcode(operands)[, attributes]`; `nested` for an operand written
  // as an instruction (no attributes, no name: named `<opcode>.anon`).
  absl::Status ParseInstructionRhs(HloComputation* computation, std::string_view name,
                                   size_t name_offset, bool nested, HloInstruction** out);
  absl::Status ParseOperands(HloComputation* computation, HloInstruction* instr);
  absl::Status ParseOperand(HloComputation* computation, HloInstruction** operand);
  absl::Status ParseCompactTupleIndices(HloComputation* computation, HloInstruction** value);
  absl::Status AddImplicitParameter(HloComputation* computation, std::string_view name,
                                    const Shape& shape, size_t offset, HloInstruction** out);
  absl::StatusOr<Shape> InferParsedShape(const HloInstruction& instr, const CallRefs& refs) const;
  std::string UniqueLocalName(std::string_view base);
  bool AtShape() const;
  // Every recursive production enters here; XLA's parser has the same limit.
  absl::Status EnterNesting();
  static constexpr int kMaxNestingDepth = 500;
  absl::StatusOr<std::unique_ptr<HloModule>> ParseSingleInstructionModule();
  absl::Status CheckParameterNumbering(const HloComputation& computation, size_t offset);
  absl::Status ParseAttribute(HloInstruction* instr, CallRefs* refs,
                              std::vector<std::string_view>* seen);
  absl::Status CheckRequiredAttributes(const HloInstruction* instr, const CallRefs& refs,
                                       const std::vector<std::string_view>& seen,
                                       size_t opcode_offset);
  absl::Status AssignCallSlots(HloInstruction* instr, const CallRefs& refs);
  absl::Status ResolveCalls();

  // ------------------------------------------------------------ values
  absl::Status ParseShape(Shape* shape);
  // Parses a shape and points *out at it: at a cached copy when the same
  // array-shape text was parsed before, else at *scratch.
  absl::Status ParseShapeView(Shape* scratch, const Shape** out);
  absl::Status ParseArrayShape(Shape* shape);
  absl::Status ParseLayout(const Shape& shape, Layout* layout);
  absl::Status ParseLiteral(const Shape& shape, Literal* literal);
  absl::Status ParseArrayLevel(const Shape& shape, int64_t dim, Literal* literal, int64_t* linear);
  absl::Status ParseElement(Literal* literal, int64_t linear);
  absl::Status ParseNanPayload(Literal* literal, int64_t linear, bool store);
  absl::Status CheckFloatInRange(const Token& t, double value, PrimitiveType type) const;
  absl::Status ParseInt(int64_t* value);
  absl::Status ParseBool(bool* value);
  absl::Status ParseString(std::string* value);
  absl::Status ParseIntList(std::vector<int64_t>* values);  // {1,2,3}
  absl::Status ParseShapeIndex(ShapeIndex* index);          // {0,1}
  absl::Status ParseName(std::string_view what, std::string_view* name);
  absl::Status ParseRawValue(std::string* value);
  absl::Status ParseSlice(HloInstruction* instr);
  absl::Status ParsePadding(PaddingConfig* padding);
  absl::Status ParseWindow(Window* window);
  absl::Status ParseFrontendAttributes(FrontendAttributes* attrs);
  absl::Status ParseOutputOperandAliasing(std::vector<OutputOperandAlias>* aliases);
  absl::Status ParseComputationRefs(std::string_view attr, bool list, CallRefs* refs);
  absl::Status ParseInlineComputation(std::string_view attribute, CallRefs::Ref* ref);
  absl::Status ParseEntryComputationLayout();
  absl::Status ParseInputOutputAlias();
  absl::Status ParseBufferDonor();
  absl::Status ParseStackFrameTables();
  absl::Status ParseStackFrameTable(std::string_view table);
  absl::Status ParseTableFields(
      std::string_view table,
      const std::vector<std::pair<std::string_view, int64_t*>>& fields);

  std::string_view src_;
  // How many "parameter(" the input holds: no parameter number can reach it.
  int64_t MaxParameterCount() {
    if (max_parameter_count_ < 0) {
      max_parameter_count_ = 0;
      for (size_t at = src_.find("parameter("); at != std::string_view::npos;
           at = src_.find("parameter(", at + 1)) {
        ++max_parameter_count_;
      }
    }
    return max_parameter_count_;
  }
  int64_t max_parameter_count_ = -1;
  // The line and column of `offset`, counting lines as Error does. Offsets
  // mostly grow, so a cursor makes the whole parse linear.
  HloInstruction::SourceLocation LocationOf(size_t offset) {
    if (offset > src_.size()) offset = src_.size();
    if (offset < location_cursor_) {
      location_cursor_ = 0;
      location_line_ = 1;
      location_line_start_ = 0;
    }
    for (size_t i = location_cursor_; i < offset; ++i) {
      if (src_[i] == '\n' || (src_[i] == '\r' && (i + 1 >= src_.size() || src_[i + 1] != '\n'))) {
        ++location_line_;
        location_line_start_ = i + 1;
      }
    }
    location_cursor_ = offset;
    return {location_line_, static_cast<int64_t>(offset - location_line_start_ + 1)};
  }
  size_t location_cursor_ = 0;
  int64_t location_line_ = 1;
  size_t location_line_start_ = 0;
  static constexpr int64_t kSmallParameterNumber = 4096;
  HloLexer lexer_;
  std::string_view filename_;

  std::unique_ptr<HloModule> module_;
  bool is_scheduled_ = false;
  HloComputation* entry_ = nullptr;
  size_t entry_layout_offset_ = 0;
  absl::flat_hash_map<absl::string_view, std::pair<HloComputation*, size_t>> computations_;
  absl::flat_hash_map<absl::string_view, HloInstruction*> instructions_;  // current computation
  std::vector<PendingCall> pending_calls_;
  std::vector<HloInstruction*> async_done_without_calls_;
  std::vector<HloInstruction*> pending_control_predecessors_;
  // `<op>-start` instructions, parsed as <op> with the async shape.
  std::vector<std::pair<HloInstruction*, size_t>> async_sugar_starts_;
  absl::Status ExpandAsyncSugar();
  absl::Status CheckAsyncChains();
  // async-update / async-done, with the opcode their sugar form names
  // (`add-done`: add), checked once the module is read.
  struct AsyncContinuation {
    HloInstruction* instruction;
    std::optional<HloOpcode> sugar_opcode;
    size_t offset;
  };
  std::vector<AsyncContinuation> async_continuations_;
  HloInstruction* last_added_ = nullptr;
  // Byte offsets of FileLocations / StackFrames entries, for errors.
  std::vector<size_t> file_location_offsets_;
  std::vector<size_t> stack_frame_offsets_;
  int nesting_depth_ = 0;
  // Array shapes parsed so far, by their exact text: a dump writes the same
  // few shapes on every operand, and a hit skips lexing and allocation.
  // Node-based, so the pointers ParseShapeView hands out stay valid.
  absl::node_hash_map<absl::string_view, Shape> shape_by_text_;
  // A text that is one instruction: unknown operands become parameters.
  bool single_instruction_ = false;
  int64_t next_implicit_parameter_ = 0;
  absl::flat_hash_map<std::pair<const HloInstruction*, int64_t>, HloInstruction*> compact_tuple_elements_;
  // Where each attribute value of the instruction being parsed starts.
  std::vector<std::pair<std::string_view, size_t>> attribute_offsets_;
};

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
  return absl::InvalidArgumentError(StrCat(
      AbslView(filename_), ":", line, ":", col, ": error: ", AbslView(message), "\n",
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
  if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!values->empty()) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or '}'"); !st.ok()) return st;
    }
    int64_t v;
    if (absl::Status st = ParseInt(&v); !st.ok()) return st;
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
    } else if (t.kind == TokKind::kRbrace || t.kind == TokKind::kRparen || t.kind == TokKind::kRsquare) {
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

// ------------------------------------------------------------------ shapes

// The end of the text of an array shape at `begin` in the simple form a dump
// writes (`type[dims]` and a layout right after it, on one line, no nested
// braces), or 0. Each scan stops at the first character that cannot belong to
// it, so it is linear however the input is malformed.
size_t SimpleArrayShapeTextEnd(std::string_view source, size_t begin) {
  auto is_type_char = [](char c) { return absl::ascii_isalnum(c) || c == '_'; };
  auto is_dims_char = [](char c) {
    return absl::ascii_isdigit(c) || c == ',' || c == '<' || c == '=' || c == '?';
  };
  size_t i = begin;
  while (i < source.size() && is_type_char(source[i])) ++i;
  if (i == begin || i >= source.size() || source[i] != '[') return 0;
  ++i;
  while (i < source.size() && is_dims_char(source[i])) ++i;
  if (i >= source.size() || source[i] != ']') return 0;
  ++i;
  if (i < source.size() && source[i] == '{') {
    ++i;
    while (i < source.size() && source[i] != '}' && source[i] != '{' && source[i] != '\n' &&
           source[i] != '"') {
      ++i;
    }
    if (i >= source.size() || source[i] != '}') return 0;
    ++i;
  }
  return i;
}

absl::Status Parser::ParseShape(Shape* shape) {
  const Shape* parsed = nullptr;
  if (absl::Status st = ParseShapeView(shape, &parsed); !st.ok()) return st;
  if (parsed != shape) *shape = *parsed;
  return absl::OkStatus();
}

absl::Status Parser::ParseShapeView(Shape* scratch, const Shape** out) {
  if (lexer_.kind() == TokKind::kName) {
    const size_t begin = lexer_.Peek().offset;
    const std::string_view source = lexer_.source().substr(0, lexer_.end());
    const size_t end = SimpleArrayShapeTextEnd(source, begin);
    const absl::string_view text = end == 0 ? absl::string_view() : AbslView(source.substr(begin, end - begin));
    if (end != 0) {
      if (auto it = shape_by_text_.find(text); it != shape_by_text_.end()) {
        lexer_.SkipTo(end);
        *out = &it->second;
        return absl::OkStatus();
      }
    }
    if (absl::Status st = ParseArrayShape(scratch); !st.ok()) return st;
    *out = scratch;
    // Cached only when the parser read exactly the scanned text, so a hit
    // gives what parsing would.
    if (end != 0 && lexer_.prev_end() == end) {
      *out = &shape_by_text_.try_emplace(text, *scratch).first->second;
    }
    return absl::OkStatus();
  }
  if (absl::Status st = ParseArrayShape(scratch); !st.ok()) return st;
  *out = scratch;
  return absl::OkStatus();
}

absl::Status Parser::ParseArrayShape(Shape* shape) {
  if (absl::Status st = EnterNesting(); !st.ok()) return st;
  absl::Cleanup leave = [&] { --nesting_depth_; };
  if (lexer_.kind() == TokKind::kLparen) {
    lexer_.Next();
    std::vector<Shape> elements;
    while (lexer_.kind() != TokKind::kRparen) {
      if (!elements.empty()) {
        if (absl::Status st = Expect(TokKind::kComma, "',' or ')' in tuple shape"); !st.ok()) return st;
      }
      Shape element;
      if (absl::Status st = ParseShape(&element); !st.ok()) return st;
      elements.push_back(std::move(element));
    }
    lexer_.Next();
    *shape = Shape(std::move(elements));
    return absl::OkStatus();
  }
  if (lexer_.kind() != TokKind::kName) return Unexpected("a shape");
  const Token type_tok = lexer_.Peek();
  std::optional<PrimitiveType> type = primitive_util::StringToPrimitiveType(type_tok.text);
  if (!type || *type == PrimitiveType::TUPLE) {
    if (lexer_.NextCharIs('[')) {
      return ErrorHere(StrCat("unknown element type '", AbslView(type_tok.text), "'"));
    }
    return Unexpected("a shape");
  }
  lexer_.Next();
  if (lexer_.kind() != TokKind::kLsquare || lexer_.Peek().offset != type_tok.end()) {
    return Unexpected(StrCat("'[' after element type ", AbslView(type_tok.text)));
  }
  lexer_.Next();
  Shape s;
  s.set_element_type(*type);
  bool first = true;
  while (lexer_.kind() != TokKind::kRsquare) {
    if (!first) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or ']' in shape dimensions"); !st.ok()) return st;
    }
    first = false;
    if (lexer_.kind() == TokKind::kOther && lexer_.Peek().text == "?") {
      lexer_.Next();
      s.add_dimensions(Shape::kUnboundedSize, true);
      continue;
    }
    bool dynamic = TryConsume(TokKind::kLeq);
    if (lexer_.kind() != TokKind::kInt) return Unexpected("a dimension size");
    int64_t size;
    if (absl::Status st = ParseInt(&size); !st.ok()) return st;
    if (size < 0) return Error(lexer_.prev_end() - 1, "dimension size must not be negative");
    s.add_dimensions(size, dynamic);
  }
  lexer_.Next();
  // Byte sizes are computed in int64 everywhere downstream; refuse a shape
  // whose size does not fit rather than let it wrap.
  {
    int64_t bytes = std::max(1, primitive_util::ByteWidth(*type));
    for (int64_t d = 0; d < s.rank(); ++d) {
      const int64_t size = s.dimensions(d);
      if (size == Shape::kUnboundedSize) continue;
      if (__builtin_mul_overflow(bytes, size, &bytes)) {
        return Error(type_tok.offset, StrCat("shape has more than 2^63-1 bytes: its dimensions "
                                             "overflow a 64-bit byte size"));
      }
    }
  }
  if ((*type == PrimitiveType::TOKEN || *type == PrimitiveType::OPAQUE_TYPE) && s.rank() != 0) {
    return Error(type_tok.offset, StrCat(AbslView(type_tok.text), " shapes have no dimensions"));
  }
  // A layout must follow ']' directly: `-> f32[] {` opens a computation body.
  if (lexer_.kind() == TokKind::kLbrace && lexer_.Peek().offset == lexer_.prev_end() && s.IsArray()) {
    Layout layout;
    if (absl::Status st = ParseLayout(s, &layout); !st.ok()) return st;
    // `{}` on a scalar is the same as no layout; keep one canonical form.
    if (!(s.rank() == 0 && layout.HasOnlyMinorToMajor())) s.set_layout(std::move(layout));
  }
  *shape = std::move(s);
  return absl::OkStatus();
}

absl::Status Parser::ParseLayout(const Shape& shape, Layout* layout) {
  const size_t start = lexer_.Peek().offset;
  if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
  std::vector<int64_t> minor_to_major;
  while (lexer_.kind() == TokKind::kInt) {
    int64_t d;
    if (absl::Status st = ParseInt(&d); !st.ok()) return st;
    minor_to_major.push_back(d);
    if (!TryConsume(TokKind::kComma)) break;
  }
  *layout->mutable_minor_to_major() = std::move(minor_to_major);
  const std::vector<int64_t>& m2m = layout->minor_to_major();
  auto paren_int = [&](int64_t* v) -> absl::Status {
    if (absl::Status st = Expect(TokKind::kLparen, "'('"); !st.ok()) return st;
    if (absl::Status st = ParseInt(v); !st.ok()) return st;
    return Expect(TokKind::kRparen, "')'");
  };
  auto paren_type = [&](PrimitiveType* t) -> absl::Status {
    if (absl::Status st = Expect(TokKind::kLparen, "'('"); !st.ok()) return st;
    if (lexer_.kind() != TokKind::kName) return Unexpected("an element type");
    auto type = primitive_util::StringToPrimitiveType(lexer_.Peek().text);
    if (!type) return ErrorHere(StrCat("unknown element type '", AbslView(lexer_.Peek().text), "'"));
    lexer_.Next();
    *t = *type;
    return Expect(TokKind::kRparen, "')'");
  };
  if (TryConsume(TokKind::kColon)) {
    while (lexer_.kind() != TokKind::kRbrace) {
      const Token t = lexer_.Peek();
      std::string_view key = t.text;
      if (t.kind == TokKind::kName && key == "T") {
        lexer_.Next();
        if (lexer_.kind() != TokKind::kLparen) return Unexpected("'(' after T");
        while (lexer_.kind() == TokKind::kLparen) {
          lexer_.Next();
          Tile tile;
          while (lexer_.kind() != TokKind::kRparen) {
            if (!tile.dimensions().empty()) {
              if (absl::Status st = Expect(TokKind::kComma, "',' or ')' in tile"); !st.ok()) return st;
            }
            if (lexer_.kind() == TokKind::kOther && lexer_.Peek().text == "*") {
              lexer_.Next();
              tile.mutable_dimensions()->push_back(Tile::kCombineDimension);
            } else {
              int64_t d;
              if (absl::Status st = ParseInt(&d); !st.ok()) return st;
              tile.mutable_dimensions()->push_back(d);
            }
          }
          lexer_.Next();
          layout->add_tile(std::move(tile));
        }
      } else if (t.kind == TokKind::kName && key == "L") {
        lexer_.Next();
        int64_t v;
        if (absl::Status st = paren_int(&v); !st.ok()) return st;
        layout->set_tail_padding_alignment_in_elements(v);
      } else if (t.kind == TokKind::kName && key == "E") {
        lexer_.Next();
        int64_t v;
        if (absl::Status st = paren_int(&v); !st.ok()) return st;
        layout->set_element_size_in_bits(v);
      } else if (t.kind == TokKind::kName && key == "S") {
        lexer_.Next();
        int64_t v;
        if (absl::Status st = paren_int(&v); !st.ok()) return st;
        layout->set_memory_space(v);
      } else if (t.kind == TokKind::kName && key == "M") {
        lexer_.Next();
        int64_t v;
        if (absl::Status st = paren_int(&v); !st.ok()) return st;
        layout->set_dynamic_shape_metadata_prefix_bytes(v);
      } else if (t.kind == TokKind::kName && key == "SC") {
        lexer_.Next();
        if (absl::Status st = Expect(TokKind::kLparen, "'(' after SC"); !st.ok()) return st;
        SplitConfig sc;
        int64_t dim;
        if (absl::Status st = ParseInt(&dim); !st.ok()) return st;
        sc.set_dimension(dim);
        if (absl::Status st = Expect(TokKind::kColon, "':' in split config"); !st.ok()) return st;
        while (true) {
          int64_t idx;
          if (absl::Status st = ParseInt(&idx); !st.ok()) return st;
          sc.mutable_split_indices()->push_back(idx);
          if (!TryConsume(TokKind::kComma)) break;
        }
        if (absl::Status st = Expect(TokKind::kRparen, "')' after split config"); !st.ok()) return st;
        layout->add_split_config(std::move(sc));
      } else if (t.kind == TokKind::kName && key == "P") {
        lexer_.Next();
        if (absl::Status st = Expect(TokKind::kLparen, "'(' after P"); !st.ok()) return st;
        Shape physical;
        if (absl::Status st = ParseShape(&physical); !st.ok()) return st;
        if (absl::Status st = Expect(TokKind::kRparen, "')' after physical shape"); !st.ok()) return st;
        layout->set_physical_shape(physical);
      } else if (t.kind == TokKind::kName && key == "D") {
        lexer_.Next();
        if (lexer_.kind() != TokKind::kLparen) return Unexpected("'(' after D");
        std::string_view inside;
        const size_t at = lexer_.Peek().offset + 1;
        if (!lexer_.ScanBalanced(&inside)) return ErrorHere("unterminated D(...)");
        if (std::string m = text_internal::CheckDimLevelTypes(inside); !m.empty()) return Error(at, m);
        layout->set_dim_level_types_text(std::string(inside));
      } else if (t.kind == TokKind::kOther && key == "#") {
        lexer_.Next();
        PrimitiveType type;
        if (absl::Status st = paren_type(&type); !st.ok()) return st;
        layout->set_index_primitive_type(type);
      } else if (t.kind == TokKind::kOther && key == "*") {
        lexer_.Next();
        PrimitiveType type;
        if (absl::Status st = paren_type(&type); !st.ok()) return st;
        layout->set_pointer_primitive_type(type);
      } else if (t.kind == TokKind::kEof) {
        return Error(start, "unterminated layout");
      } else {
        return ErrorHere(StrCat("unknown layout attribute ", Describe(t)));
      }
    }
  }
  if (lexer_.kind() != TokKind::kRbrace) return Unexpected("',' ':' or '}' in layout");
  lexer_.Next();
  if (layout->has_physical_shape()) {
    // Only sparse arrays (a dimension level other than dense) keep their
    // data in a separate physical shape.
    const std::string_view levels = layout->dim_level_types_text();
    if (levels.find_first_of("CSH") == std::string_view::npos) {
      return Error(start, "layout has a physical shape P(...) but is not for a sparse array (D(...) "
                          "needs a compressed, singleton or loose level)");
    }
  }
  const int64_t rank = shape.rank();
  if (static_cast<int64_t>(m2m.size()) != rank) {
    return Error(start, StrCat("layout ", layout->ToString(), " has ", m2m.size(),
                                     " dimensions but the shape has rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t d : m2m) {
    if (d < 0 || d >= rank || seen[d]) {
      return Error(start, StrCat("layout ", layout->ToString(),
                                       " is not a permutation of the dimensions 0..", rank - 1));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- literals

absl::Status Parser::ParseElement(Literal* literal, int64_t linear) {
  const PrimitiveType type = literal->element_type();
  const Token t = lexer_.Peek();
  const bool store = linear < literal->element_count();
  if (type == PrimitiveType::PRED) {
    int64_t v;
    if (AtName("true")) {
      v = 1;
    } else if (AtName("false")) {
      v = 0;
    } else if (t.kind == TokKind::kInt && (t.text == "0" || t.text == "1")) {
      v = t.text == "1";
    } else {
      return Unexpected("true or false");
    }
    lexer_.Next();
    if (store) literal->SetFromInt64(linear, v);
    return absl::OkStatus();
  }
  if (IsComplex(type)) {
    if (absl::Status st = Expect(TokKind::kLparen, "'(' of a complex value"); !st.ok()) return st;
    double parts[2];
    for (int k = 0; k < 2; ++k) {
      if (k == 1) {
        if (absl::Status st = Expect(TokKind::kComma, "','"); !st.ok()) return st;
      }
      const Token p = lexer_.Peek();
      if (p.kind != TokKind::kInt && p.kind != TokKind::kFloat &&
          !(p.kind == TokKind::kName && (p.text == "inf" || p.text == "nan"))) {
        return Unexpected("a number");
      }
      parts[k] = std::strtod(std::string(p.text).c_str(), nullptr);
      if (absl::Status st = CheckFloatInRange(p, parts[k], primitive_util::ComplexComponentType(type));
          !st.ok()) {
        return st;
      }
      lexer_.Next();
    }
    if (absl::Status st = Expect(TokKind::kRparen, "')'"); !st.ok()) return st;
    if (store) literal->SetFromComplex(linear, {parts[0], parts[1]});
    return absl::OkStatus();
  }
  if (IsFloatingPoint(type)) {
    if (t.kind != TokKind::kInt && t.kind != TokKind::kFloat &&
        !(t.kind == TokKind::kName && (t.text == "inf" || t.text == "nan"))) {
      return Unexpected(StrCat("a ", AbslView(PrimitiveTypeName(type)), " value"));
    }
    double v = std::strtod(std::string(t.text).c_str(), nullptr);
    const bool is_nan = t.text == "nan" || t.text == "-nan";
    if (is_nan && lexer_.NextCharIs('(')) return ParseNanPayload(literal, linear, store);
    if (absl::Status st = CheckFloatInRange(t, v, type); !st.ok()) return st;
    lexer_.Next();
    if (store) literal->SetFromDouble(linear, v);
    return absl::OkStatus();
  }
  // Integers.
  if (t.kind != TokKind::kInt) {
    return Unexpected(StrCat("an integer ", AbslView(PrimitiveTypeName(type)), " value"));
  }
  if (type == PrimitiveType::U64 && !t.text.empty() && t.text.front() == '-') {
    // XLA reads u64 values through int64, so a negative value wraps.
    int64_t v;
    auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || ptr != t.text.data() + t.text.size()) {
      return ErrorHere(StrCat("value ", AbslView(t.text), " does not fit u64"));
    }
    lexer_.Next();
    if (store) literal->SetFromUint64(linear, static_cast<uint64_t>(v));
    return absl::OkStatus();
  }
  if (type == PrimitiveType::U64) {
    uint64_t v;
    auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || ptr != t.text.data() + t.text.size()) {
      return ErrorHere(StrCat("value ", AbslView(t.text), " does not fit u64"));
    }
    lexer_.Next();
    if (store) literal->SetFromUint64(linear, v);
    return absl::OkStatus();
  }
  int64_t v;
  auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (ec != std::errc() || ptr != t.text.data() + t.text.size()) {
    return ErrorHere(StrCat("value ", AbslView(t.text), " is out of range"));
  }
  const int bits = BitWidth(type);
  if (bits < 64) {
    const bool is_signed = primitive_util::IsSignedIntegralType(type);
    const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
    const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    if (v < lo || v > hi) {
      return ErrorHere(StrCat("value ", v, " does not fit ", AbslView(PrimitiveTypeName(type))));
    }
  }
  lexer_.Next();
  if (store) literal->SetFromInt64(linear, v);
  return absl::OkStatus();
}

// A finite number written for a float element must stay finite in the
// element type (XLA: "out of range"); inf and nan are written as such.
absl::Status Parser::CheckFloatInRange(const Token& t, double value, PrimitiveType type) const {
  if (t.kind == TokKind::kName || (t.kind == TokKind::kFloat && (t.text == "-inf" || t.text == "-nan"))) {
    return absl::OkStatus();
  }
  // Rounded to the element type, the value must stay finite (no literal is
  // built per element: constants can be large).
  bool out_of_range = !std::isfinite(value);  // e.g. 1e400 for f64
  if (!out_of_range && type == PrimitiveType::F32) {
    // FLT_MAX plus half an ulp rounds (to even) up to inf.
    out_of_range = std::fabs(value) >= static_cast<double>(std::numeric_limits<float>::max()) + 0x1p103;
  } else if (!out_of_range && type != PrimitiveType::F64 && BitWidth(type) <= 16) {
    out_of_range = !std::isfinite(
        primitive_util::NarrowFloatBitsToDouble(type, primitive_util::DoubleToNarrowFloatBits(type, value)));
  }
  if (!out_of_range) return absl::OkStatus();
  return Error(t.offset, StrCat("value ", AbslView(t.text), " is out of range for ",
                                AbslView(PrimitiveTypeName(type)), " (it would become ",
                                value < 0 ? "-inf" : "inf", ")"));
}

// `nan(0x<mantissa>)` / `-nan(0x<mantissa>)`: a NaN with an explicit payload.
absl::Status Parser::ParseNanPayload(Literal* literal, int64_t linear, bool store) {
  const Token nan_tok = lexer_.Next();
  const bool negative = nan_tok.text.front() == '-';
  std::string_view inside;
  if (!lexer_.ScanBalanced(&inside)) return Error(nan_tok.offset, "unterminated nan( payload");
  uint64_t payload = 0;
  const bool hex = inside.size() > 2 && inside[0] == '0' && (inside[1] == 'x' || inside[1] == 'X');
  auto [ptr, ec] = hex ? std::from_chars(inside.data() + 2, inside.data() + inside.size(), payload, 16)
                       : std::from_chars(inside.data(), inside.data() + inside.size(), payload);
  if (ec != std::errc() || ptr != inside.data() + inside.size()) {
    return Error(nan_tok.end() + 1, StrCat("bad NaN payload '", AbslView(inside),
                                           "': expected a hexadecimal number like 0x1"));
  }
  Literal probe(ShapeUtil::MakeShape(literal->element_type(), {1}));
  if (!probe.SetNanWithPayload(0, negative, payload)) {
    return Error(nan_tok.end() + 1,
                 StrCat("NaN payload ", AbslView(inside), " does not fit the mantissa of ",
                        AbslView(PrimitiveTypeName(literal->element_type())),
                        " (it must be non-zero and fit the mantissa bits)"));
  }
  if (store) literal->SetNanWithPayload(linear, negative, payload);
  return absl::OkStatus();
}

absl::Status Parser::ParseArrayLevel(const Shape& shape, int64_t dim, Literal* literal,
                                     int64_t* linear) {
  if (absl::Status st = EnterNesting(); !st.ok()) return st;
  absl::Cleanup leave = [&] { --nesting_depth_; };
  const size_t brace = lexer_.Peek().offset;
  if (absl::Status st = Expect(TokKind::kLbrace, "'{' of an array literal"); !st.ok()) return st;
  int64_t count = 0;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (count > 0) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or '}' in literal"); !st.ok()) return st;
    }
    if (dim == shape.rank() - 1) {
      if (absl::Status st = ParseElement(literal, (*linear)++); !st.ok()) return st;
    } else {
      if (absl::Status st = ParseArrayLevel(shape, dim + 1, literal, linear); !st.ok()) return st;
    }
    ++count;
  }
  lexer_.Next();
  if (count != shape.dimensions(dim)) {
    return Error(brace, StrCat("literal has ", count, " element", count == 1 ? "" : "s",
                                     " in dimension ", dim, " but shape ", shape.ToString(false),
                                     " expects ", shape.dimensions(dim)));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseLiteral(const Shape& shape, Literal* literal) {
  if (absl::Status st = EnterNesting(); !st.ok()) return st;
  absl::Cleanup leave = [&] { --nesting_depth_; };
  if (lexer_.CurrentStartsWith("{...}")) {
    *literal = Literal::CreateElided(shape);
    lexer_.Reset(lexer_.Peek().offset + 5);
    return absl::OkStatus();
  }
  if (shape.IsTuple()) {
    if (absl::Status st = Expect(TokKind::kLparen, "'(' of a tuple literal"); !st.ok()) return st;
    std::vector<Literal> elements;
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) {
        if (absl::Status st = Expect(TokKind::kComma, "','"); !st.ok()) return st;
      }
      // Elements may carry their shape (`(f32[] 1, s32[] 2)`).
      if ((lexer_.kind() == TokKind::kName && lexer_.NextCharIs('[') &&
           primitive_util::StringToPrimitiveType(lexer_.Peek().text)) ||
          (lexer_.kind() == TokKind::kLparen && shape.tuple_shapes(i).IsTuple() && false)) {
        Shape ignored;
        if (absl::Status st = ParseShape(&ignored); !st.ok()) return st;
      }
      Literal element;
      if (absl::Status st = ParseLiteral(shape.tuple_shapes(i), &element); !st.ok()) return st;
      elements.push_back(std::move(element));
    }
    if (absl::Status st = Expect(TokKind::kRparen, "')' closing the tuple literal"); !st.ok()) return st;
    *literal = Literal::MakeTuple(std::move(elements));
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return ErrorHere("constants must have an array or tuple shape");
  // Every element is written out (at least one character each), so a shape
  // with more elements than the rest of the input has characters cannot be
  // this literal; checked before the literal's storage is sized from it.
  {
    const int64_t remaining = static_cast<int64_t>(src_.size() - std::min(src_.size(), lexer_.Peek().offset));
    int64_t elements = 1;
    bool too_many = false;
    bool empty = false;
    for (int64_t d = 0; d < shape.rank(); ++d) empty = empty || shape.dimensions(d) == 0;
    for (int64_t d = 0; d < shape.rank() && !too_many && !empty; ++d) {
      too_many = __builtin_mul_overflow(elements, shape.dimensions(d), &elements) || elements > remaining;
    }
    if (!empty && (too_many || elements > remaining)) {
      return ErrorHere(StrCat("a literal of shape ", shape.ToString(), " needs more elements than the ",
                              remaining, " characters left in the input can hold"));
    }
  }
  Literal lit(shape);
  if (shape.rank() == 0) {
    if (absl::Status st = ParseElement(&lit, 0); !st.ok()) return st;
  } else {
    int64_t linear = 0;
    if (absl::Status st = ParseArrayLevel(shape, 0, &lit, &linear); !st.ok()) return st;
  }
  *literal = std::move(lit);
  return absl::OkStatus();
}

// ------------------------------------------------------- typed attributes

absl::Status Parser::ParseSlice(HloInstruction* instr) {
  if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
  std::vector<int64_t> starts, limits, strides;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!starts.empty()) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or '}'"); !st.ok()) return st;
    }
    if (absl::Status st = Expect(TokKind::kLsquare, "'[' of a slice range"); !st.ok()) return st;
    int64_t a, b, s = 1;
    if (absl::Status st = ParseInt(&a); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kColon, "':'"); !st.ok()) return st;
    if (absl::Status st = ParseInt(&b); !st.ok()) return st;
    if (TryConsume(TokKind::kColon)) {
      if (absl::Status st = ParseInt(&s); !st.ok()) return st;
    }
    if (absl::Status st = Expect(TokKind::kRsquare, "']'"); !st.ok()) return st;
    starts.push_back(a);
    limits.push_back(b);
    strides.push_back(s);
  }
  lexer_.Next();
  instr->set_slice(std::move(starts), std::move(limits), std::move(strides));
  return absl::OkStatus();
}

namespace {
bool ParseIntText(std::string_view s, int64_t* v) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
}
}  // namespace

absl::Status Parser::ParsePadding(PaddingConfig* padding) {
  const size_t start = lexer_.Peek().offset;
  std::string_view text = lexer_.ScanRawUntil(",{}()");
  if (text.empty()) return Error(start, "expected a padding config like 0_1x2_3");
  padding->dimensions.clear();
  for (std::string_view dim : Split(text, 'x')) {
    std::vector<std::string_view> parts = Split(dim, '_');
    PaddingConfigDimension d;
    if ((parts.size() != 2 && parts.size() != 3) || !ParseIntText(parts[0], &d.edge_padding_low) ||
        !ParseIntText(parts[1], &d.edge_padding_high) ||
        (parts.size() == 3 && !ParseIntText(parts[2], &d.interior_padding))) {
      return Error(start, StrCat("bad padding config '", AbslView(text),
                                       "': expected low_high[_interior] per dimension, joined by 'x'"));
    }
    padding->dimensions.push_back(d);
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseWindow(Window* window) {
  const size_t start = lexer_.Peek().offset;
  if (lexer_.kind() != TokKind::kLbrace) return Unexpected("'{' of a window");
  std::string_view inside;
  if (!lexer_.ScanBalanced(&inside)) return Error(start, "unterminated window");
  window->dimensions.clear();
  size_t pos = 0;
  std::vector<std::pair<std::string_view, std::string_view>> fields;
  while (pos < inside.size()) {
    while (pos < inside.size() && (inside[pos] == ' ' || inside[pos] == '\t' || inside[pos] == '\n')) ++pos;
    if (pos >= inside.size()) break;
    size_t end = pos;
    while (end < inside.size() && inside[end] != ' ' && inside[end] != '\t' && inside[end] != '\n') ++end;
    std::string_view item = inside.substr(pos, end - pos);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Error(start + 1 + pos, StrCat("bad window field '", AbslView(item), "'"));
    }
    fields.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    pos = end;
  }
  size_t rank = 0;
  for (const auto& [key, value] : fields) {
    if (key == "size") rank = Split(value, 'x').size();
  }
  if (rank == 0 && !fields.empty()) return Error(start, "window has no size=");
  window->dimensions.assign(rank, WindowDimension());
  for (const auto& [key, value] : fields) {
    std::vector<std::string_view> parts = Split(value, 'x');
    if (parts.size() != rank) {
      return Error(start, StrCat("window field ", AbslView(key), " has ", parts.size(),
                                       " dimensions but size= has ", rank));
    }
    for (size_t d = 0; d < rank; ++d) {
      WindowDimension& wd = window->dimensions[d];
      bool ok = true;
      if (key == "size") {
        ok = ParseIntText(parts[d], &wd.size);
      } else if (key == "stride") {
        ok = ParseIntText(parts[d], &wd.stride);
      } else if (key == "pad") {
        std::vector<std::string_view> lh = Split(parts[d], '_');
        ok = lh.size() == 2 && ParseIntText(lh[0], &wd.padding_low) && ParseIntText(lh[1], &wd.padding_high);
      } else if (key == "lhs_dilate") {
        ok = ParseIntText(parts[d], &wd.base_dilation);
      } else if (key == "rhs_dilate") {
        ok = ParseIntText(parts[d], &wd.window_dilation);
      } else if (key == "rhs_reversal") {
        int64_t r = 0;
        ok = ParseIntText(parts[d], &r) && (r == 0 || r == 1);
        wd.window_reversal = r == 1;
      } else {
        return Error(start, StrCat("unknown window field '", AbslView(key), "'"));
      }
      if (!ok) {
        return Error(start, StrCat("bad value '", AbslView(value), "' for window field ",
                                         AbslView(key)));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseFrontendAttributes(FrontendAttributes* attrs) {
  if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
  bool first = true;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!first) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or '}'"); !st.ok()) return st;
    }
    first = false;
    std::string key;
    if (lexer_.kind() == TokKind::kString) {
      if (absl::Status st = ParseString(&key); !st.ok()) return st;
    } else if (lexer_.kind() == TokKind::kName) {
      key = std::string(lexer_.Next().text);
    } else {
      return Unexpected("a frontend attribute name");
    }
    if (absl::Status st = Expect(TokKind::kEqual, "'='"); !st.ok()) return st;
    std::string value;
    if (lexer_.kind() == TokKind::kLbrace) {
      // A dictionary value (composite.attributes), kept verbatim.
      const size_t open = lexer_.Peek().offset;
      std::string_view inside;
      if (!lexer_.ScanBalanced(&inside)) return Error(open, "unterminated '{' in frontend attribute value");
      value = StrCat("{", AbslView(inside), "}");
    } else if (absl::Status st = ParseString(&value); !st.ok()) {
      return st;
    }
    attrs->Set(key, value);
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseOutputOperandAliasing(std::vector<OutputOperandAlias>* aliases) {
  if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!aliases->empty()) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or '}'"); !st.ok()) return st;
    }
    OutputOperandAlias a;
    if (absl::Status st = ParseShapeIndex(&a.output_index); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kColon, "':'"); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kLparen, "'('"); !st.ok()) return st;
    if (absl::Status st = ParseInt(&a.operand_number); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kComma, "','"); !st.ok()) return st;
    if (absl::Status st = ParseShapeIndex(&a.operand_index); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kRparen, "')'"); !st.ok()) return st;
    aliases->push_back(std::move(a));
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseComputationRefs(std::string_view attr, bool list, CallRefs* refs) {
  std::vector<CallRefs::Ref> names;
  auto one = [&]() -> absl::Status {
    if (lexer_.kind() == TokKind::kLbrace) {
      CallRefs::Ref ref;
      if (absl::Status st = ParseInlineComputation(attr, &ref); !st.ok()) return st;
      names.push_back(ref);
      return absl::OkStatus();
    }
    if (lexer_.kind() != TokKind::kName) return Unexpected("a computation name");
    const Token t = lexer_.Next();
    names.push_back({StripPercent(t.text), t.offset});
    return absl::OkStatus();
  };
  // `calls={ p = f32[] parameter(0) ... }` is one computation written inline,
  // `calls={a, b}` a list of names.
  if (list && lexer_.kind() == TokKind::kLbrace) {
    HloLexer probe(src_, lexer_.Peek().end(), src_.size());
    const bool inline_body = (probe.kind() == TokKind::kName && probe.Peek().text == "ROOT") ||
                             (probe.kind() == TokKind::kName && [&] {
                               probe.Next();
                               return probe.kind() == TokKind::kEqual;
                             }());
    if (inline_body) list = false;
  }
  if (list) {
    if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
    while (lexer_.kind() != TokKind::kRbrace) {
      if (!names.empty()) {
        if (absl::Status st = Expect(TokKind::kComma, "',' or '}'"); !st.ok()) return st;
      }
      if (absl::Status st = one(); !st.ok()) return st;
    }
    lexer_.Next();
  } else {
    if (absl::Status st = one(); !st.ok()) return st;
  }
  refs->by_attr.emplace_back(attr, std::move(names));
  return absl::OkStatus();
}

absl::Status Parser::ParseAttribute(HloInstruction* instr, CallRefs* refs,
                                    std::vector<std::string_view>* seen) {
  if (lexer_.kind() != TokKind::kName) return Unexpected("an attribute name");
  const Token name_tok = lexer_.Next();
  const std::string_view name = name_tok.text;
  if (!AttributeRank(name)) return Error(name_tok.offset, StrCat("unknown attribute '", AbslView(name), "'"));
  for (std::string_view s : *seen) {
    if (s == name) return Error(name_tok.offset, StrCat("duplicate attribute '", AbslView(name), "'"));
  }
  seen->push_back(name);
  if (absl::Status st = Expect(TokKind::kEqual, StrCat("'=' after ", AbslView(name))); !st.ok()) return st;
  const HloOpcode op = instr->opcode();
  const size_t value_offset = lexer_.Peek().offset;
  attribute_offsets_.emplace_back(name, value_offset);

  if (name == "mode" && (op == HloOpcode::kAllReduce || op == HloOpcode::kAllReduceStart ||
                         op == HloOpcode::kReduceScatter)) {
    // XLA reads the collective group mode, checks it and drops it: it is
    // implied by channel_id and use_global_device_ids, and never printed.
    if (lexer_.kind() != TokKind::kName) return Unexpected("a collective op group mode");
    const std::string_view mode = lexer_.Peek().text;
    if (mode != "cross_replica" && mode != "cross_partition" && mode != "cross_replica_and_partition" &&
        mode != "flattened_id") {
      return ErrorHere(StrCat("invalid collective op group mode '", AbslView(mode),
                              "' (cross_replica, cross_partition, cross_replica_and_partition or "
                              "flattened_id)"));
    }
    lexer_.Next();
  } else if (name == "index" && op == HloOpcode::kGetTupleElement) {
    int64_t v;
    if (absl::Status st = ParseInt(&v); !st.ok()) return st;
    instr->set_tuple_index(v);
  } else if (name == "kind" && op == HloOpcode::kFusion) {
    if (lexer_.kind() != TokKind::kName) return Unexpected("a fusion kind");
    auto kind = StringToFusionKind(lexer_.Peek().text);
    if (!kind) return ErrorHere(StrCat("unknown fusion kind ", Describe(lexer_.Peek())));
    lexer_.Next();
    instr->set_fusion_kind(*kind);
  } else if (name == "custom_call_target") {
    std::string target;
    if (absl::Status st = ParseString(&target); !st.ok()) return st;
    instr->set_custom_call_target(target);
  } else if (name == "iota_dimension") {
    int64_t v;
    if (absl::Status st = ParseInt(&v); !st.ok()) return st;
    instr->set_iota_dimension(v);
  } else if (name == "channel_id") {
    int64_t v;
    if (absl::Status st = ParseInt(&v); !st.ok()) return st;
    instr->set_channel_id(v);
  } else if (name == "dimensions") {
    std::vector<int64_t> dims;
    if (absl::Status st = ParseIntList(&dims); !st.ok()) return st;
    instr->set_dimensions(std::move(dims));
    instr->set_has_dimensions(true);
  } else if (name == "direction" && op == HloOpcode::kCompare) {
    if (lexer_.kind() != TokKind::kName) return Unexpected("a comparison direction");
    auto d = StringToComparisonDirection(lexer_.Peek().text);
    if (!d) return ErrorHere(StrCat("unknown comparison direction ", Describe(lexer_.Peek())));
    lexer_.Next();
    instr->set_comparison_direction(*d);
  } else if (name == "type" && op == HloOpcode::kCompare) {
    if (lexer_.kind() != TokKind::kName) return Unexpected("a comparison type");
    auto t = StringToComparisonType(lexer_.Peek().text);
    if (!t) return ErrorHere(StrCat("unknown comparison type ", Describe(lexer_.Peek())));
    lexer_.Next();
    instr->set_comparison_type(*t);
  } else if (name == "slice" && op == HloOpcode::kSlice) {
    if (absl::Status st = ParseSlice(instr); !st.ok()) return st;
  } else if (name == "dynamic_slice_sizes") {
    std::vector<int64_t> v;
    if (absl::Status st = ParseIntList(&v); !st.ok()) return st;
    instr->set_dynamic_slice_sizes(std::move(v));
  } else if (name == "padding" && op == HloOpcode::kPad) {
    PaddingConfig p;
    if (absl::Status st = ParsePadding(&p); !st.ok()) return st;
    instr->set_padding_config(std::move(p));
  } else if (name == "window") {
    Window w;
    if (absl::Status st = ParseWindow(&w); !st.ok()) return st;
    instr->set_window(std::move(w));
  } else if (name == "dim_labels") {
    std::string_view text = lexer_.ScanRawUntil(",{}()");
    auto dnums = ParseConvolutionDimLabels(text);
    if (!dnums.ok()) return Error(value_offset, StdView(dnums.status().message()));
    instr->set_convolution_dimension_numbers(*dnums, std::string(text));
  } else if (name == "feature_group_count") {
    int64_t v;
    if (absl::Status st = ParseInt(&v); !st.ok()) return st;
    instr->set_feature_group_count(v);
  } else if (name == "batch_group_count") {
    int64_t v;
    if (absl::Status st = ParseInt(&v); !st.ok()) return st;
    instr->set_batch_group_count(v);
  } else if ((op == HloOpcode::kDot || op == HloOpcode::kRaggedDot) &&
             (name == "lhs_batch_dims" || name == "lhs_contracting_dims" ||
              name == "rhs_batch_dims" || name == "rhs_contracting_dims")) {
    DotDimensionNumbers* d = instr->mutable_dot_dimension_numbers();
    std::vector<int64_t>* target = name == "lhs_batch_dims"         ? &d->lhs_batch_dimensions
                                   : name == "lhs_contracting_dims" ? &d->lhs_contracting_dimensions
                                   : name == "rhs_batch_dims"       ? &d->rhs_batch_dimensions
                                                                    : &d->rhs_contracting_dimensions;
    if (absl::Status st = ParseIntList(target); !st.ok()) return st;
  } else if (op == HloOpcode::kGather &&
             (name == "offset_dims" || name == "collapsed_slice_dims" || name == "start_index_map" ||
              name == "operand_batching_dims" || name == "start_indices_batching_dims" ||
              name == "slice_sizes")) {
    GatherDimensionNumbers* d = instr->mutable_gather_dimension_numbers();
    std::vector<int64_t> v;
    if (absl::Status st = ParseIntList(&v); !st.ok()) return st;
    if (name == "offset_dims") d->offset_dims = std::move(v);
    else if (name == "collapsed_slice_dims") d->collapsed_slice_dims = std::move(v);
    else if (name == "start_index_map") d->start_index_map = std::move(v);
    else if (name == "operand_batching_dims") d->operand_batching_dims = std::move(v);
    else if (name == "start_indices_batching_dims") d->start_indices_batching_dims = std::move(v);
    else instr->set_gather_slice_sizes(std::move(v));
  } else if (op == HloOpcode::kScatter &&
             (name == "update_window_dims" || name == "inserted_window_dims" ||
              name == "scatter_dims_to_operand_dims" || name == "input_batching_dims" ||
              name == "scatter_indices_batching_dims")) {
    ScatterDimensionNumbers* d = instr->mutable_scatter_dimension_numbers();
    std::vector<int64_t> v;
    if (absl::Status st = ParseIntList(&v); !st.ok()) return st;
    if (name == "update_window_dims") d->update_window_dims = std::move(v);
    else if (name == "inserted_window_dims") d->inserted_window_dims = std::move(v);
    else if (name == "scatter_dims_to_operand_dims") d->scatter_dims_to_operand_dims = std::move(v);
    else if (name == "input_batching_dims") d->input_batching_dims = std::move(v);
    else d->scatter_indices_batching_dims = std::move(v);
  } else if (name == "index_vector_dim" && (op == HloOpcode::kGather || op == HloOpcode::kScatter)) {
    int64_t v;
    if (absl::Status st = ParseInt(&v); !st.ok()) return st;
    if (op == HloOpcode::kGather) {
      instr->mutable_gather_dimension_numbers()->index_vector_dim = v;
    } else {
      instr->mutable_scatter_dimension_numbers()->index_vector_dim = v;
    }
  } else if (name == "indices_are_sorted" && (op == HloOpcode::kGather || op == HloOpcode::kScatter)) {
    bool v;
    if (absl::Status st = ParseBool(&v); !st.ok()) return st;
    instr->set_indices_are_sorted(v);
  } else if (name == "unique_indices" && op == HloOpcode::kScatter) {
    bool v;
    if (absl::Status st = ParseBool(&v); !st.ok()) return st;
    instr->set_unique_indices(v);
  } else if (name == "output_to_operand_aliasing") {
    std::vector<OutputOperandAlias> aliases;
    if (absl::Status st = ParseOutputOperandAliasing(&aliases); !st.ok()) return st;
    instr->set_output_to_operand_aliasing(std::move(aliases));
  } else if (name == "frontend_attributes") {
    FrontendAttributes attrs;
    if (absl::Status st = ParseFrontendAttributes(&attrs); !st.ok()) return st;
    instr->set_frontend_attributes(std::move(attrs));
  } else if (name == "condition" || name == "body" || name == "true_computation" ||
             name == "false_computation" || name == "to_apply" ||
             (name == "calls" && lexer_.kind() != TokKind::kLbrace) ||
             (op == HloOpcode::kSelectAndScatter && (name == "select" || name == "scatter"))) {
    if (absl::Status st = ParseComputationRefs(name, /*list=*/false, refs); !st.ok()) return st;
  } else if (name == "branch_computations" || name == "called_computations" || name == "calls") {
    if (absl::Status st = ParseComputationRefs(name, /*list=*/true, refs); !st.ok()) return st;
  } else if (name == "control-predecessors") {
    if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
    bool first = true;
    while (lexer_.kind() != TokKind::kRbrace) {
      if (!first) {
        if (absl::Status st = Expect(TokKind::kComma, "',' or '}'"); !st.ok()) return st;
      }
      first = false;
      if (lexer_.kind() != TokKind::kName) return Unexpected("an instruction name");
      const Token t = lexer_.Next();
      auto it = instructions_.find(AbslView(StripPercent(t.text)));
      if (it == instructions_.end()) {
        return Error(t.offset, StrCat("undefined control predecessor '",
                                            AbslView(StripPercent(t.text)), "'"));
      }
      // Edges are added once the instruction joins the computation.
      pending_control_predecessors_.push_back(it->second);
    }
    lexer_.Next();
  } else {
    std::string raw;
    if (absl::Status st = ParseRawValue(&raw); !st.ok()) return st;
    if (name == "metadata") {
      const int64_t frame = StackFrameIdFromMetadata(raw);
      // XLA's own tests write stack_frame_id without tables; with tables,
      // the id must name one of their frames.
      const StackFrameIndex& index = module_->stack_frame_index();
      if (frame != 0 && !index.empty() && !index.HasFrame(frame)) {
        const size_t at = value_offset + raw.find("stack_frame_id=");
        return Error(at, StrCat("stack_frame_id=", frame, " does not name a frame of the StackFrames "
                                "table (", module_->stack_frame_index().stack_frames().size(),
                                " frames)"));
      }
    }
    instr->SetRawAttribute(name, std::move(raw));
  }
  return absl::OkStatus();
}

absl::Status Parser::CheckRequiredAttributes(const HloInstruction* instr, const CallRefs& refs,
                                             const std::vector<std::string_view>& seen,
                                             size_t opcode_offset) {
  auto has = [&](std::string_view n) {
    for (std::string_view s : seen) {
      if (s == n) return true;
    }
    return false;
  };
  auto require = [&](std::initializer_list<std::string_view> names) -> absl::Status {
    for (std::string_view n : names) {
      if (!has(n)) {
        return Error(opcode_offset, StrCat("missing required attribute '", AbslView(n), "' for ",
                                                 AbslView(HloOpcodeString(instr->opcode()))));
      }
    }
    return absl::OkStatus();
  };
  switch (instr->opcode()) {
    case HloOpcode::kGetTupleElement: return require({"index"});
    case HloOpcode::kFusion: return require({"kind", "calls"});
    case HloOpcode::kWhile: return require({"condition", "body"});
    case HloOpcode::kConditional:
      if (has("branch_computations")) {
        if (has("true_computation") || has("false_computation")) {
          return Error(opcode_offset,
                       "conditional has both branch_computations and true/false_computation");
        }
        return absl::OkStatus();
      }
      if (!has("true_computation") && !has("false_computation")) {
        return Error(opcode_offset,
                     "missing required attribute 'branch_computations' (or true_computation and "
                     "false_computation) for conditional");
      }
      return require({"true_computation", "false_computation"});
    case HloOpcode::kCall:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kSort:
      if (instr->opcode() == HloOpcode::kReduce) {
        if (absl::Status st = require({"dimensions"}); !st.ok()) return st;
      }
      if (instr->opcode() == HloOpcode::kReduceWindow) {
        // Over scalars the window has no dimensions and may be left out.
        bool all_scalar = true;
        for (const HloInstruction* operand : instr->operands()) {
          all_scalar &= operand->shape().IsArray() && operand->shape().rank() == 0;
        }
        if (!all_scalar) {
          if (absl::Status st = require({"window"}); !st.ok()) return st;
        }
      }
      return require({"to_apply"});
    case HloOpcode::kScan: return require({"dimensions", "num_carries", "to_apply"});
    case HloOpcode::kScatter:
      return require({"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
                      "index_vector_dim", "to_apply"});
    case HloOpcode::kSelectAndScatter: return require({"select", "scatter"});
    case HloOpcode::kAsyncStart: return require({"calls"});
    case HloOpcode::kCustomCall: return require({"custom_call_target"});
    case HloOpcode::kCompare: return require({"direction"});
    case HloOpcode::kIota: return require({"iota_dimension"});
    case HloOpcode::kSlice: return require({"slice"});
    case HloOpcode::kDynamicSlice: return require({"dynamic_slice_sizes"});
    case HloOpcode::kPad: return require({"padding"});
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kConcatenate: return require({"dimensions"});
    case HloOpcode::kGather:
      return require({"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
                      "slice_sizes"});
    case HloOpcode::kConvolution: return require({"dim_labels"});
    default: return absl::OkStatus();
  }
  (void)refs;
}

// Turns the named computation references into called_computations slots
// (XLA's order) and records them for resolution.
absl::Status Parser::AssignCallSlots(HloInstruction* instr, const CallRefs& refs) {
  std::vector<CallRefs::Ref> slots;
  auto append = [&](std::string_view attr) {
    if (const auto* r = refs.Get(attr)) slots.insert(slots.end(), r->begin(), r->end());
  };
  switch (instr->opcode()) {
    case HloOpcode::kWhile:
      append("body");
      append("condition");
      break;
    case HloOpcode::kConditional:
      if (refs.Get("true_computation")) {
        instr->set_conditional_uses_true_false_form(true);
        append("true_computation");
        append("false_computation");
      } else {
        append("branch_computations");
      }
      break;
    case HloOpcode::kSelectAndScatter:
      append("select");
      append("scatter");
      break;
    default:
      append("calls");
      append("to_apply");
      append("called_computations");
      break;
  }
  std::vector<HloComputation*> none(slots.size(), nullptr);
  instr->set_called_computations(std::move(none));
  for (size_t k = 0; k < slots.size(); ++k) {
    pending_calls_.push_back(PendingCall{instr, k, slots[k].name, slots[k].offset});
  }
  if (slots.empty() &&
      (instr->opcode() == HloOpcode::kAsyncDone || instr->opcode() == HloOpcode::kAsyncUpdate)) {
    async_done_without_calls_.push_back(instr);
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------ instructions

// Whether the current token starts a shape: a tuple `(` or `type[`.
// (A name followed by `[` is a shape; ParseShape refuses an unknown type.)
bool Parser::AtShape() const {
  if (lexer_.kind() == TokKind::kLparen) return true;
  return lexer_.kind() == TokKind::kName && lexer_.NextCharIs('[');
}

absl::Status Parser::EnterNesting() {
  if (++nesting_depth_ > kMaxNestingDepth) {
    --nesting_depth_;
    return ErrorHere(StrCat("maximum nesting depth (", kMaxNestingDepth,
                            ") exceeded: shapes, literals and nested instructions may nest at most ",
                            kMaxNestingDepth, " levels"));
  }
  return absl::OkStatus();
}

// `%t#1#0`: XLA's compact get-tuple-element form. Each step reuses the
// get-tuple-element made for the same (tuple, index), named `t_1`, `t_1_0`.
absl::Status Parser::ParseCompactTupleIndices(HloComputation* computation, HloInstruction** value) {
  while (lexer_.kind() == TokKind::kOther && lexer_.Peek().text == "#" &&
         lexer_.Peek().offset == lexer_.prev_end()) {
    lexer_.Next();
    const size_t index_offset = lexer_.Peek().offset;
    int64_t index;
    if (absl::Status st = ParseInt(&index); !st.ok()) return st;
    const Shape& tuple = (*value)->shape();
    if (!tuple.IsTuple()) {
      return Error(index_offset, StrCat("'", (*value)->name(), "#", index, "': ", (*value)->name(),
                                        " is not a tuple (", tuple.ToString(true), ")"));
    }
    if (index < 0 || index >= tuple.tuple_shapes_size()) {
      return Error(index_offset, StrCat("'", (*value)->name(), "#", index, "': index out of range for ",
                                        tuple.ToString(true)));
    }
    auto key = std::make_pair(*value, index);
    auto it = compact_tuple_elements_.find(key);
    if (it == compact_tuple_elements_.end()) {
      auto gte = HloInstruction::Create(HloOpcode::kGetTupleElement, tuple.tuple_shapes(index), {*value});
      gte->set_tuple_index(index);
      gte->SetAndSanitizeName(UniqueLocalName(StrCat((*value)->name(), "_", index)));
      HloInstruction* added = computation->AddInstruction(std::move(gte));
      instructions_.emplace(AbslView(added->name()), added);
      it = compact_tuple_elements_.emplace(key, added).first;
    }
    *value = it->second;
  }
  return absl::OkStatus();
}

// `base`, else `base.1`, `base.2`, ... : a name unused in this computation.
std::string Parser::UniqueLocalName(std::string_view base) {
  std::string name(base);
  for (int n = 1; instructions_.contains(AbslView(name)); ++n) name = StrCat(AbslView(base), ".", n);
  return name;
}

// An operand: `[shape] name[#i...]`, or a nested instruction
// `[shape] opcode(...)` (added before its user, named `<opcode>.anon`). In a
// single-instruction text, unknown names and bare shapes become parameters.
absl::Status Parser::ParseOperand(HloComputation* computation, HloInstruction** operand) {
  if (absl::Status st = EnterNesting(); !st.ok()) return st;
  absl::Cleanup leave = [&] { --nesting_depth_; };
  const size_t operand_offset = lexer_.Peek().offset;
  Shape written_storage;
  const Shape* written = nullptr;
  if (AtShape()) {
    if (absl::Status st = ParseShapeView(&written_storage, &written); !st.ok()) return st;
  }
  if (lexer_.kind() == TokKind::kName && lexer_.NextCharIs('(')) {
    lexer_.Reset(operand_offset);
    return ParseInstructionRhs(computation, "", operand_offset, /*nested=*/true, operand);
  }
  if (lexer_.kind() != TokKind::kName) {
    if (written && single_instruction_ &&
        (lexer_.kind() == TokKind::kComma || lexer_.kind() == TokKind::kRparen)) {
      return AddImplicitParameter(computation, StrCat("_", next_implicit_parameter_), *written,
                                  operand_offset, operand);
    }
    return Unexpected(written ? "an operand name after the shape" : "an operand");
  }
  const Token t = lexer_.Next();
  const std::string_view name = StripPercent(t.text);
  auto it = instructions_.find(AbslView(name));
  HloInstruction* value = nullptr;
  if (it != instructions_.end()) {
    value = it->second;
  } else if (single_instruction_) {
    if (!written) {
      return Error(t.offset, StrCat("operand '", AbslView(name), "' has no shape: a single-instruction "
                                    "text needs the shapes of its operands to make parameters"));
    }
    if (absl::Status st = AddImplicitParameter(computation, name, *written, operand_offset, &value); !st.ok()) {
      return st;
    }
    written = nullptr;
  } else {
    return Error(t.offset, StrCat("undefined operand '", AbslView(name), "'"));
  }
  if (absl::Status st = ParseCompactTupleIndices(computation, &value); !st.ok()) return st;
  if (written && !ShapeUtil::Compatible(*written, value->shape())) {
    return Error(operand_offset,
                 StrCat("operand '", value->name(), "' is written with shape ", written->ToString(true),
                        " but is defined with shape ", value->shape().ToString(true)));
  }
  *operand = value;
  return absl::OkStatus();
}

absl::Status Parser::AddImplicitParameter(HloComputation* computation, std::string_view name,
                                          const Shape& shape, size_t offset, HloInstruction** out) {
  if (instructions_.contains(AbslView(name))) {
    return Error(offset, StrCat("duplicate instruction name '", AbslView(name), "'"));
  }
  auto param = HloInstruction::CreateParameter(next_implicit_parameter_++, shape, std::string(name));
  HloInstruction* added = computation->AddInstruction(std::move(param));
  instructions_.emplace(AbslView(added->name()), added);
  *out = added;
  return absl::OkStatus();
}

absl::Status Parser::ParseOperands(HloComputation* computation, HloInstruction* instr) {
  if (absl::Status st = EnterNesting(); !st.ok()) return st;
  absl::Cleanup leave = [&] { --nesting_depth_; };
  bool first = true;
  while (lexer_.kind() != TokKind::kRparen) {
    if (!first) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or ')' in operand list"); !st.ok()) return st;
    }
    first = false;
    HloInstruction* operand = nullptr;
    if (absl::Status st = ParseOperand(computation, &operand); !st.ok()) return st;
    instr->AppendOperand(operand);
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseInstruction(HloComputation* computation, HloInstruction** root,
                                      size_t* root_offset) {
  bool is_root = false;
  const size_t root_kw_offset = lexer_.Peek().offset;
  if (AtName("ROOT")) {
    lexer_.Next();
    is_root = true;
  }
  if (lexer_.kind() != TokKind::kName) return Unexpected("an instruction name");
  const Token name_tok = lexer_.Next();
  const std::string_view name = StripPercent(name_tok.text);
  if (instructions_.contains(AbslView(name))) {
    return Error(name_tok.offset, StrCat("duplicate instruction name '", AbslView(name),
                                               "' in computation '", computation->name(), "'"));
  }
  if (absl::Status st = Expect(TokKind::kEqual, "'=' after the instruction name"); !st.ok()) return st;
  HloInstruction* added = nullptr;
  if (absl::Status st = ParseInstructionRhs(computation, name, name_tok.offset, /*nested=*/false, &added);
      !st.ok()) {
    return st;
  }
  if (is_root) {
    if (*root != nullptr) {
      return Error(root_kw_offset, StrCat("computation '", computation->name(),
                                                "' has more than one ROOT"));
    }
    *root = added;
    *root_offset = root_kw_offset;
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseInstructionRhs(HloComputation* computation, std::string_view name,
                                         size_t name_offset, bool nested, HloInstruction** out) {
  if (absl::Status st = EnterNesting(); !st.ok()) return st;
  absl::Cleanup leave = [&] { --nesting_depth_; };
  std::optional<Shape> written_shape;
  if (AtShape()) {
    Shape s;
    if (absl::Status st = ParseShape(&s); !st.ok()) return st;
    written_shape = std::move(s);
  }
  if (lexer_.kind() != TokKind::kName) return Unexpected(written_shape ? "an opcode" : "a shape or an opcode");
  const Token op_tok = lexer_.Next();
  std::optional<HloOpcode> opcode = StringToHloOpcode(op_tok.text);
  // Async sugar: `<op>-start` wraps <op> in an async computation (expanded
  // once the module is read); `<op>-update` / `<op>-done` are async-update /
  // async-done.
  bool sugar_start = false;
  std::optional<HloOpcode> sugar_base;
  if (!opcode) {
    for (std::string_view suffix : {"-start", "-update", "-done"}) {
      std::string_view t = op_tok.text;
      if (t.size() <= suffix.size() || t.substr(t.size() - suffix.size()) != suffix) continue;
      std::optional<HloOpcode> base = StringToHloOpcode(t.substr(0, t.size() - suffix.size()));
      if (!base) continue;
      if (suffix == "-start") {
        opcode = base;
        sugar_start = true;
      } else {
        opcode = suffix == "-update" ? HloOpcode::kAsyncUpdate : HloOpcode::kAsyncDone;
        sugar_base = base;
      }
    }
  }
  if (!opcode) return Error(op_tok.offset, StrCat("unknown opcode '", AbslView(op_tok.text), "'"));
  if (!written_shape && (*opcode == HloOpcode::kParameter || *opcode == HloOpcode::kConstant || sugar_start)) {
    return Error(op_tok.offset, StrCat("cannot infer the shape of ", AbslView(op_tok.text),
                                       ": write its result shape"));
  }
  if (absl::Status st = Expect(TokKind::kLparen, StrCat("'(' after ", AbslView(op_tok.text)));
      !st.ok()) {
    return st;
  }
  std::unique_ptr<HloInstruction> instr =
      HloInstruction::Create(*opcode, written_shape.value_or(Shape()), {});
  const Shape& shape = instr->shape();
  if (*opcode == HloOpcode::kParameter) {
    int64_t n;
    if (absl::Status st = ParseInt(&n); !st.ok()) return st;
    if (n < 0) return Error(lexer_.prev_end() - 1, "parameter number must not be negative");
    // Parameters are numbered 0..n-1, so parameter(n) needs n+1 parameter
    // instructions; checked before anything is sized from n (a small gap is
    // reported with the computation, which names the missing number).
    if (n >= MaxParameterCount() && n >= kSmallParameterNumber) {
      return Error(lexer_.prev_end() - 1,
                   StrCat("parameter(", n, ") cannot be numbered: the input has at most ", MaxParameterCount(),
                          " parameter instruction(s), and parameters are numbered 0..n-1"));
    }
    instr->set_parameter_number(n);
    if (absl::Status st = Expect(TokKind::kRparen, "')'"); !st.ok()) return st;
  } else if (*opcode == HloOpcode::kConstant) {
    Literal literal;
    if (absl::Status st = ParseLiteral(shape, &literal); !st.ok()) return st;
    instr->set_literal(std::move(literal));
    if (absl::Status st = Expect(TokKind::kRparen, "')' after the literal"); !st.ok()) return st;
  } else {
    if (absl::Status st = ParseOperands(computation, instr.get()); !st.ok()) return st;
  }
  // async-update may bind further operands of its wrapped computation
  // (XLA's late binding), so its operand count is not fixed in the text.
  if (std::optional<int> arity = HloOpcodeArity(*opcode);
      arity && *arity != instr->operand_count() && *opcode != HloOpcode::kParameter &&
      *opcode != HloOpcode::kConstant && *opcode != HloOpcode::kAsyncUpdate) {
    return Error(op_tok.offset, StrCat(AbslView(op_tok.text), " takes ", *arity, " operand",
                                             *arity == 1 ? "" : "s", " but has ",
                                             instr->operand_count()));
  }
  CallRefs refs;
  std::vector<std::string_view> seen;
  pending_control_predecessors_.clear();
  attribute_offsets_.clear();
  // A nested instruction has no attributes: its commas separate the
  // operands of its user.
  while (!nested && lexer_.kind() == TokKind::kComma) {
    lexer_.Next();
    if (absl::Status st = ParseAttribute(instr.get(), &refs, &seen); !st.ok()) return st;
  }
  // A scalar broadcast may leave out dimensions={} (XLA prints it back).
  if (*opcode == HloOpcode::kBroadcast && !instr->has_dimensions() && instr->operand_count() == 1 &&
      instr->operand(0)->shape().IsArray() && instr->operand(0)->shape().rank() == 0) {
    instr->set_dimensions({});
    instr->set_has_dimensions(true);
    seen.push_back("dimensions");
  }
  if (lexer_.kind() == TokKind::kError) return ErrorHere(lexer_.Peek().text);
  if (absl::Status st = CheckRequiredAttributes(instr.get(), refs, seen, op_tok.offset); !st.ok()) return st;
  if (absl::Status st = AssignCallSlots(instr.get(), refs); !st.ok()) return st;
  if (!written_shape) {
    absl::StatusOr<Shape> inferred = InferParsedShape(*instr, refs);
    if (!inferred.ok()) return Error(op_tok.offset, StdView(inferred.status().message()));
    *instr->mutable_shape() = *std::move(inferred);
  }
  if (text_internal::InstructionCheckError e = text_internal::CheckParsedInstruction(*instr);
      !e.message.empty()) {
    size_t at = op_tok.offset;
    for (const auto& [attr, offset] : attribute_offsets_) {
      if (attr == e.attribute) at = offset;
    }
    return Error(at, e.message);
  }
  if (*opcode == HloOpcode::kParameter) {
    const int64_t n = instr->parameter_number();
    if (n < computation->num_parameters() && computation->parameter_instruction(n) != nullptr) {
      return Error(name_offset, StrCat("parameter number ", n, " of computation '",
                                                 computation->name(), "' is used twice (also by '",
                                                 computation->parameter_instruction(n)->name(), "')"));
    }
  }
  // Anonymous (nested) instructions are named after their opcode, as XLA does.
  instr->SetAndSanitizeName(name.empty() ? UniqueLocalName(StrCat(HloOpcodeString(*opcode), ".anon"))
                                         : std::string(name));
  instr->set_source_location(LocationOf(name_offset));
  HloInstruction* added = computation->AddInstruction(std::move(instr));
  instructions_.emplace(AbslView(added->name()), added);
  last_added_ = added;
  if (sugar_start) async_sugar_starts_.push_back({added, op_tok.offset});
  if (*opcode == HloOpcode::kAsyncUpdate || *opcode == HloOpcode::kAsyncDone) {
    async_continuations_.push_back(AsyncContinuation{added, sugar_base, op_tok.offset});
  }
  for (HloInstruction* pred : pending_control_predecessors_) {
    if (absl::Status st = pred->AddControlDependencyTo(added); !st.ok()) {
      return Error(name_offset, StdView(st.message()));
    }
  }
  *out = added;
  return absl::OkStatus();
}


absl::StatusOr<Shape> Parser::InferParsedShape(const HloInstruction& instr, const CallRefs& refs) const {
  return text_internal::InferParsedInstructionShape(
      instr, [&](std::string_view attr, size_t index) -> const HloComputation* {
        const std::vector<CallRefs::Ref>* named = refs.Get(attr);
        if (named == nullptr || index >= named->size()) return nullptr;
        auto it = computations_.find(AbslView((*named)[index].name));
        return it == computations_.end() ? nullptr : it->second.first;
      });
}

absl::Status Parser::ParseSignature(int64_t* parameter_count, Shape* result) {
  lexer_.Next();  // '('
  *parameter_count = 0;
  while (lexer_.kind() != TokKind::kRparen) {
    if (*parameter_count > 0) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or ')' in the signature"); !st.ok()) return st;
    }
    std::string_view pname;
    if (absl::Status st = ParseName("a parameter name", &pname); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kColon, "':' after the parameter name"); !st.ok()) return st;
    Shape s;
    if (absl::Status st = ParseShape(&s); !st.ok()) return st;
    ++*parameter_count;
  }
  lexer_.Next();
  if (absl::Status st = Expect(TokKind::kArrow, "'->' in the signature"); !st.ok()) return st;
  return ParseShape(result);
}

absl::Status Parser::ParseComputation() {
  bool is_entry = false;
  const size_t entry_offset = lexer_.Peek().offset;
  if (AtName("ENTRY")) {
    lexer_.Next();
    is_entry = true;
    if (entry_ != nullptr) {
      return Error(entry_offset, StrCat("multiple ENTRY computations (the first is '",
                                              entry_->name(), "')"));
    }
  }
  if (lexer_.kind() != TokKind::kName) return Unexpected("a computation name");
  const Token name_tok = lexer_.Next();
  const std::string_view name = StripPercent(name_tok.text);
  if (computations_.contains(AbslView(name))) {
    return Error(name_tok.offset, StrCat("duplicate computation name '", AbslView(name), "'"));
  }
  int64_t signature_params = -1;
  std::optional<Shape> signature_result;
  if (lexer_.kind() == TokKind::kLparen) {
    Shape result;
    if (absl::Status st = ParseSignature(&signature_params, &result); !st.ok()) return st;
    signature_result = std::move(result);
  }
  std::unique_ptr<HloComputation> computation;
  if (absl::Status st = ParseComputationBody(name, name_tok.offset, signature_params, &computation); !st.ok()) {
    return st;
  }
  if (signature_result && !ShapeUtil::Compatible(*signature_result, computation->root_instruction()->shape())) {
    return Error(name_tok.offset,
                 StrCat("the signature of '", AbslView(name), "' returns ", signature_result->ToString(false),
                        ", which is not compatible with its root instruction ",
                        computation->root_instruction()->name(), ", ",
                        computation->root_instruction()->shape().ToString(false)));
  }
  if (lexer_.kind() == TokKind::kComma) {
    lexer_.Next();
    if (!AtName("execution_thread")) return Unexpected("execution_thread after a computation");
    lexer_.Next();
    if (absl::Status st = Expect(TokKind::kEqual, "'='"); !st.ok()) return st;
    std::string thread;
    if (absl::Status st = ParseString(&thread); !st.ok()) return st;
    computation->set_execution_thread(thread);
  }
  HloComputation* added = module_->AddComputation(std::move(computation), false, /*uniquify_names=*/false);
  computations_.emplace(AbslView(name), std::make_pair(added, name_tok.offset));
  if (is_entry) entry_ = added;
  return absl::OkStatus();
}


// `{ instructions }` of a computation named `name` (instruction names are
// local to it).
absl::Status Parser::ParseComputationBody(std::string_view name, size_t name_offset, int64_t signature_params,
                                          std::unique_ptr<HloComputation>* out) {
  if (absl::Status st = EnterNesting(); !st.ok()) return st;
  absl::Cleanup leave = [&] { --nesting_depth_; };
  const size_t lbrace = lexer_.Peek().offset;
  if (absl::Status st = Expect(TokKind::kLbrace, "'{' to start the computation body"); !st.ok()) return st;
  auto computation = std::make_unique<HloComputation>(std::string(name));
  instructions_.clear();
  HloInstruction* root = nullptr;
  size_t root_offset = 0;
  HloInstruction* last = nullptr;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (lexer_.kind() == TokKind::kEof) {
      return Error(lbrace, StrCat("computation '", AbslView(name),
                                        "' is not terminated: missing '}' before end of input"));
    }
    if (lexer_.kind() == TokKind::kError) return ErrorHere(lexer_.Peek().text);
    if (absl::Status st = ParseInstruction(computation.get(), &root, &root_offset); !st.ok()) return st;
    last = last_added_;
  }
  lexer_.Next();
  if (last == nullptr) return Error(name_offset, StrCat("computation '", AbslView(name), "' is empty"));
  computation->set_root_instruction(root != nullptr ? root : last);
  if (absl::Status st = CheckParameterNumbering(*computation, name_offset); !st.ok()) return st;
  const auto& params = computation->parameter_instructions();
  if (signature_params >= 0 && signature_params != static_cast<int64_t>(params.size())) {
    return Error(name_offset, StrCat("the signature of '", AbslView(name), "' declares ",
                                               signature_params, " parameter(s) but the body has ",
                                               params.size()));
  }
  *out = std::move(computation);
  return absl::OkStatus();
}

// A computation written inline as an attribute value (`to_apply={ ... }`),
// named `<attribute>.anon`; the enclosing computation's names stay in scope
// after it.
absl::Status Parser::ParseInlineComputation(std::string_view attribute, CallRefs::Ref* ref) {
  const size_t offset = lexer_.Peek().offset;
  std::string name = StrCat(AbslView(attribute), ".anon");
  for (int n = 1; computations_.contains(AbslView(name)) || module_->IsNameUsed(name); ++n) {
    name = StrCat(AbslView(attribute), ".anon.", n);
  }
  // The enclosing instruction is half-parsed: keep its per-instruction state.
  auto saved_instructions = std::move(instructions_);
  auto saved_predecessors = std::move(pending_control_predecessors_);
  auto saved_offsets = std::move(attribute_offsets_);
  instructions_.clear();
  HloInstruction* saved_last = last_added_;
  std::unique_ptr<HloComputation> computation;
  absl::Status st = ParseComputationBody(name, offset, -1, &computation);
  instructions_ = std::move(saved_instructions);
  pending_control_predecessors_ = std::move(saved_predecessors);
  attribute_offsets_ = std::move(saved_offsets);
  last_added_ = saved_last;
  if (!st.ok()) return st;
  HloComputation* added = module_->AddComputation(std::move(computation), false, /*uniquify_names=*/false);
  computations_.emplace(AbslView(added->name()), std::make_pair(added, offset));
  *ref = CallRefs::Ref{added->name(), offset};
  return absl::OkStatus();
}

absl::Status Parser::ResolveCalls() {
  for (const PendingCall& p : pending_calls_) {
    auto it = computations_.find(AbslView(p.name));
    if (it == computations_.end()) {
      return Error(p.offset, StrCat("computation '", AbslView(p.name), "' is not defined"));
    }
    std::vector<HloComputation*> called = p.instruction->called_computations();
    called[p.slot] = it->second.first;
    p.instruction->set_called_computations(std::move(called));
  }
  return absl::OkStatus();
}

absl::Status Parser::ExpandAsyncSugar() {
  for (const auto& [instr, offset] : async_sugar_starts_) {
    const Shape shape = instr->shape();
    if (!shape.IsTuple() || shape.tuple_shapes_size() < 2 || !shape.tuple_shapes(0).IsTuple() ||
        shape.tuple_shapes(0).tuple_shapes_size() != instr->operand_count()) {
      return Error(offset, StrCat("async op '", instr->name(),
                                  "' must have shape ((operand shapes...), result shape, ...)"));
    }
    const std::string base = StrCat("wrapped_", HloOpcodeString(instr->opcode()), "_computation");
    std::string comp_name = base;
    for (int n = 1; module_->IsNameUsed(comp_name) || computations_.contains(AbslView(comp_name)); ++n) {
      comp_name = StrCat(base, ".", n);
    }
    auto wrapped_comp = std::make_unique<HloComputation>(comp_name);
    // XLA's late binding: async-updates after the start may pass further
    // operands of the wrapped op; the last one's shape has its result.
    std::vector<Shape> operand_shapes(shape.tuple_shapes(0).tuple_shapes().begin(),
                                      shape.tuple_shapes(0).tuple_shapes().end());
    Shape result = shape.tuple_shapes(1);
    const HloInstruction* link = instr;
    for (bool more = true; more;) {
      more = false;
      for (const HloInstruction* user : link->users()) {
        if (user->opcode() != HloOpcode::kAsyncUpdate || user->operand(0) != link) continue;
        for (int64_t k = 1; k < user->operand_count(); ++k) operand_shapes.push_back(user->operand(k)->shape());
        if (user->operand_count() > 1 && user->shape().IsTuple() && user->shape().tuple_shapes_size() > 1) {
          result = user->shape().tuple_shapes(1);
        }
        link = user;
        more = true;
        break;
      }
    }
    std::vector<HloInstruction*> params;
    for (size_t i = 0; i < operand_shapes.size(); ++i) {
      params.push_back(wrapped_comp->AddInstruction(HloInstruction::CreateParameter(
          static_cast<int64_t>(i), operand_shapes[i], StrCat("param_", i))));
    }
    std::unique_ptr<HloInstruction> wrapped = instr->CloneWithNewOperands(result, params);
    wrapped->SetAndSanitizeName(HloOpcodeString(instr->opcode()));
    auto start = HloInstruction::Create(HloOpcode::kAsyncStart, shape, instr->operands());
    // Async-level attributes stay on the start; the rest describe the op.
    for (std::string_view name : {"async_execution_thread", "async_group_id", "backend_config"}) {
      if (auto v = wrapped->GetRawAttribute(name)) {
        start->SetRawAttribute(name, std::string(*v));
        wrapped->RemoveRawAttribute(name);
      }
    }
    if (auto md = wrapped->GetRawAttribute("metadata")) start->SetRawAttribute("metadata", std::string(*md));
    if (auto thread = start->GetRawAttribute("async_execution_thread")) {
      std::string_view t = *thread;
      if (t.size() >= 2 && t.front() == '"') t = t.substr(1, t.size() - 2);
      wrapped_comp->set_execution_thread(t);
    }
    HloInstruction* root = wrapped_comp->AddInstruction(std::move(wrapped));
    wrapped_comp->set_root_instruction(root);
    HloComputation* added_comp = module_->AddComputation(std::move(wrapped_comp), false, false);
    computations_.emplace(AbslView(added_comp->name()), std::make_pair(added_comp, offset));
    start->set_called_computations({added_comp});
    auto replaced = instr->parent()->ReplaceWithNewInstructionInPlace(instr, std::move(start));
    if (!replaced.ok()) return Error(offset, StdView(replaced.status().message()));
  }
  // async-update/-done written without calls= take the wrapped computation
  // of the async op they complete.
  for (HloInstruction* done : async_done_without_calls_) {
    if (done->operand_count() >= 1 && !done->operand(0)->called_computations().empty()) {
      done->set_called_computations({done->operand(0)->called_computations()[0]});
    }
  }
  return CheckAsyncChains();
}

// XLA's rules for async-start / -update / -done: an update or done follows
// an async op and agrees with it on the wrapped computation, its thread and
// (sugar form) the wrapped opcode; a wrapped computation has one async-start.
absl::Status Parser::CheckAsyncChains() {
  auto thread_of = [](const HloInstruction* i) {
    std::string_view t = i->GetRawAttribute("async_execution_thread").value_or("\"main\"");
    if (t.size() >= 2 && t.front() == '"') t = t.substr(1, t.size() - 2);
    return std::string(t);
  };
  for (const AsyncContinuation& c : async_continuations_) {
    const HloInstruction* op = c.instruction;
    if (op->operand_count() < 1 || (op->operand(0)->opcode() != HloOpcode::kAsyncStart &&
                                    op->operand(0)->opcode() != HloOpcode::kAsyncUpdate)) {
      return Error(c.offset, StrCat(HloOpcodeString(op->opcode()),
                                    " expects an asynchronous operation (async-start or async-update) as its "
                                    "first operand"));
    }
    const HloInstruction* previous = op->operand(0);
    const HloComputation* wrapped =
        previous->called_computations().empty() ? nullptr : previous->called_computations()[0];
    const HloComputation* own = op->called_computations().empty() ? nullptr : op->called_computations()[0];
    if (wrapped != nullptr && own != nullptr && wrapped != own) {
      return Error(c.offset, StrCat("expected the async wrapped computation to be ", wrapped->name(),
                                    " (that of ", previous->name(), "), but got ", own->name()));
    }
    // Written without a thread, an update or done runs on its start's.
    if (op->GetRawAttribute("async_execution_thread") && thread_of(op) != thread_of(previous)) {
      return Error(c.offset, StrCat("expected async_execution_thread to be ", thread_of(previous),
                                    " (that of ", previous->name(), "), but got ", thread_of(op)));
    }
    if (c.sugar_opcode && wrapped != nullptr && wrapped->root_instruction() != nullptr &&
        wrapped->root_instruction()->opcode() != *c.sugar_opcode) {
      return Error(c.offset, StrCat("expected the async wrapped opcode to be ",
                                    HloOpcodeString(wrapped->root_instruction()->opcode()), ", but got ",
                                    HloOpcodeString(*c.sugar_opcode)));
    }
  }
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> starts;
  for (const HloComputation* computation : module_->computations()) {
    for (const HloInstruction* i : computation->instructions()) {
      if (i->opcode() != HloOpcode::kAsyncStart || i->called_computations().empty()) continue;
      const HloComputation* wrapped = i->called_computations()[0];
      auto [it, inserted] = starts.emplace(wrapped, i);
      if (!inserted) {
        auto where = computations_.find(AbslView(wrapped->name()));
        return Error(where != computations_.end() ? where->second.second : 0,
                     StrCat("computation ", wrapped->name(), " is called by more than one async op (",
                            it->second->name(), " and ", i->name(), ")"));
      }
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------- module header

absl::Status Parser::ParseEntryComputationLayout() {
  entry_layout_offset_ = lexer_.Peek().offset;
  if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
  if (absl::Status st = Expect(TokKind::kLparen, "'('"); !st.ok()) return st;
  std::vector<Shape> params;
  while (lexer_.kind() != TokKind::kRparen) {
    if (!params.empty()) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or ')'"); !st.ok()) return st;
    }
    Shape s;
    if (absl::Status st = ParseShape(&s); !st.ok()) return st;
    params.push_back(std::move(s));
  }
  lexer_.Next();
  if (absl::Status st = Expect(TokKind::kArrow, "'->'"); !st.ok()) return st;
  Shape result;
  if (absl::Status st = ParseShape(&result); !st.ok()) return st;
  if (absl::Status st = Expect(TokKind::kRbrace, "'}'"); !st.ok()) return st;
  module_->set_entry_computation_layout(ComputationLayout(std::move(params), std::move(result)));
  return absl::OkStatus();
}

absl::Status Parser::ParseInputOutputAlias() {
  if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
  bool first = true;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!first) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or '}'"); !st.ok()) return st;
    }
    first = false;
    const size_t entry_offset = lexer_.Peek().offset;
    ShapeIndex out, param_index;
    int64_t param;
    if (absl::Status st = ParseShapeIndex(&out); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kColon, "':'"); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kLparen, "'('"); !st.ok()) return st;
    if (absl::Status st = ParseInt(&param); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kComma, "','"); !st.ok()) return st;
    if (absl::Status st = ParseShapeIndex(&param_index); !st.ok()) return st;
    auto kind = HloInputOutputAliasConfig::kMayAlias;
    if (TryConsume(TokKind::kComma)) {
      if (AtName("must-alias")) {
        kind = HloInputOutputAliasConfig::kMustAlias;
      } else if (!AtName("may-alias")) {
        return Unexpected("may-alias or must-alias");
      }
      lexer_.Next();
    }
    if (absl::Status st = Expect(TokKind::kRparen, "')'"); !st.ok()) return st;
    absl::Status st = module_->input_output_alias_config().SetUpAlias(out, param, param_index, kind);
    if (!st.ok()) return Error(entry_offset, StdView(st.message()));
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseBufferDonor() {
  if (absl::Status st = Expect(TokKind::kLbrace, "'{'"); !st.ok()) return st;
  bool first = true;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!first) {
      if (absl::Status st = Expect(TokKind::kComma, "',' or '}'"); !st.ok()) return st;
    }
    first = false;
    const size_t entry_offset = lexer_.Peek().offset;
    int64_t param;
    ShapeIndex index;
    if (absl::Status st = Expect(TokKind::kLparen, "'('"); !st.ok()) return st;
    if (absl::Status st = ParseInt(&param); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kComma, "','"); !st.ok()) return st;
    if (absl::Status st = ParseShapeIndex(&index); !st.ok()) return st;
    if (absl::Status st = Expect(TokKind::kRparen, "')'"); !st.ok()) return st;
    absl::Status st = module_->buffer_donor_config().AddBufferDonor(param, index);
    if (!st.ok()) return Error(entry_offset, StdView(st.message()));
  }
  lexer_.Next();
  return absl::OkStatus();
}

// `Name` followed by entries `id value`, ids counting from 1 (XLA's
// stack-frame index, written after the HloModule line).
absl::Status Parser::ParseStackFrameTable(std::string_view table) {
  StackFrameIndex* index = module_->mutable_stack_frame_index();
  const std::vector<std::string>* names = table == "FileNames"       ? &index->file_names()
                                          : table == "FunctionNames" ? &index->function_names()
                                                                     : nullptr;
  const int64_t existing = names                         ? static_cast<int64_t>(names->size())
                           : table == "FileLocations" ? static_cast<int64_t>(index->file_locations().size())
                                                       : static_cast<int64_t>(index->stack_frames().size());
  if (existing != 0) return ErrorHere(StrCat("a second ", AbslView(table), " table"));
  lexer_.Next();
  int64_t expected = 1;
  while (lexer_.kind() == TokKind::kInt) {
    const size_t entry_offset = lexer_.Peek().offset;
    int64_t id;
    if (absl::Status st = ParseInt(&id); !st.ok()) return st;
    if (id != expected) {
      return Error(entry_offset, StrCat(AbslView(table), " entry has id ", id, ", expected ", expected,
                                        " (ids count from 1 in order)"));
    }
    ++expected;
    if (table == "FileNames" || table == "FunctionNames") {
      std::string value;
      if (absl::Status st = ParseString(&value); !st.ok()) return st;
      if (table == "FileNames") {
        index->AddFileName(std::move(value));
      } else {
        index->AddFunctionName(std::move(value));
      }
    } else if (table == "FileLocations") {
      FileLocation l;
      if (absl::Status st = ParseTableFields(table, {{"file_name_id", &l.file_name_id},
                                                     {"function_name_id", &l.function_name_id},
                                                     {"line", &l.line},
                                                     {"end_line", &l.end_line},
                                                     {"column", &l.column},
                                                     {"end_column", &l.end_column}});
          !st.ok()) {
        return st;
      }
      index->AddFileLocation(l);
      file_location_offsets_.push_back(entry_offset);
    } else {
      StackFrame f;
      int64_t written_parent = 1;
      if (absl::Status st = ParseTableFields(
              table, {{"file_location_id", &f.file_location_id}, {"parent_frame_id", &written_parent}});
          !st.ok()) {
        return st;
      }
      if (written_parent < 1) {
        return Error(entry_offset, StrCat("parent_frame_id=", written_parent,
                                          ": XLA writes the parent id plus one, so 1 means no parent"));
      }
      f.parent_frame_id = written_parent - 1;
      index->AddStackFrame(f);
      stack_frame_offsets_.push_back(entry_offset);
    }
  }
  return absl::OkStatus();
}

// `{key=int key=int ...}`: each key at most once, missing keys stay 0.
absl::Status Parser::ParseTableFields(
    std::string_view table, const std::vector<std::pair<std::string_view, int64_t*>>& fields) {
  if (absl::Status st = Expect(TokKind::kLbrace, StrCat("'{' of a ", AbslView(table), " entry"));
      !st.ok()) {
    return st;
  }
  std::vector<bool> seen(fields.size(), false);
  while (lexer_.kind() != TokKind::kRbrace) {
    if (lexer_.kind() != TokKind::kName) return Unexpected(StrCat("a ", AbslView(table), " field or '}'"));
    const Token key = lexer_.Next();
    size_t k = 0;
    while (k < fields.size() && fields[k].first != key.text) ++k;
    if (k == fields.size()) {
      return Error(key.offset, StrCat("unknown ", AbslView(table), " field '", AbslView(key.text), "'"));
    }
    if (seen[k]) return Error(key.offset, StrCat("duplicate field '", AbslView(key.text), "'"));
    seen[k] = true;
    if (absl::Status st = Expect(TokKind::kEqual, StrCat("'=' after ", AbslView(key.text))); !st.ok()) {
      return st;
    }
    if (absl::Status st = ParseInt(fields[k].second); !st.ok()) return st;
    TryConsume(TokKind::kComma);
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseStackFrameTables() {
  auto at_table = [&] {
    return AtName("FileNames") || AtName("FunctionNames") || AtName("FileLocations") ||
           AtName("StackFrames");
  };
  // A computation may be named like a table; a table name is followed by an
  // entry id or ends the table list.
  while (at_table()) {
    HloLexer probe(src_, lexer_.Peek().end(), src_.size());
    if (probe.kind() == TokKind::kLbrace || probe.kind() == TokKind::kLparen) break;
    const std::string_view table = lexer_.Peek().text;
    if (absl::Status st = ParseStackFrameTable(table); !st.ok()) return st;
  }
  const StackFrameIndex& index = module_->stack_frame_index();
  if (index.empty()) return absl::OkStatus();
  // Positioned reference checks; Validate() states the same rules.
  for (size_t i = 0; i < index.file_locations().size(); ++i) {
    const FileLocation& l = index.file_locations()[i];
    if (l.file_name_id < 1 || l.file_name_id > static_cast<int64_t>(index.file_names().size())) {
      return Error(file_location_offsets_[i],
                   StrCat("file_name_id=", l.file_name_id, " does not name an entry of FileNames (",
                          index.file_names().size(), " entries)"));
    }
    if (l.function_name_id < 1 || l.function_name_id > static_cast<int64_t>(index.function_names().size())) {
      return Error(file_location_offsets_[i],
                   StrCat("function_name_id=", l.function_name_id,
                          " does not name an entry of FunctionNames (", index.function_names().size(),
                          " entries)"));
    }
  }
  for (size_t i = 0; i < index.stack_frames().size(); ++i) {
    const StackFrame& f = index.stack_frames()[i];
    if (f.file_location_id < 1 || f.file_location_id > static_cast<int64_t>(index.file_locations().size())) {
      return Error(stack_frame_offsets_[i],
                   StrCat("file_location_id=", f.file_location_id,
                          " does not name an entry of FileLocations (", index.file_locations().size(),
                          " entries)"));
    }
    if (f.parent_frame_id >= static_cast<int64_t>(i) + 1) {
      return Error(stack_frame_offsets_[i],
                   StrCat("parent_frame_id=", f.parent_frame_id + 1, " names frame ", f.parent_frame_id,
                          ": a caller's frame must come before the frames it calls"));
    }
  }
  // These are StackFrameIndex::Validate's rules, checked here to point at
  // the entry; Validate is for indexes built by code.
  return absl::OkStatus();
}

absl::Status Parser::ParseModuleAttribute() {
  if (lexer_.kind() != TokKind::kName) return Unexpected("a module attribute name");
  const Token name_tok = lexer_.Next();
  const std::string_view name = name_tok.text;
  if (absl::Status st = Expect(TokKind::kEqual, StrCat("'=' after ", AbslView(name))); !st.ok()) return st;
  if (name == "is_scheduled") return ParseBool(&is_scheduled_);
  if (name == "entry_computation_layout") return ParseEntryComputationLayout();
  if (name == "input_output_alias") return ParseInputOutputAlias();
  if (name == "buffer_donor") return ParseBufferDonor();
  if (name == "alias_passthrough_params") {
    bool v;
    if (absl::Status st = ParseBool(&v); !st.ok()) return st;
    module_->set_alias_passthrough_params(v);
    return absl::OkStatus();
  }
  if (name == "replica_count" || name == "num_partitions") {
    int64_t v;
    if (absl::Status st = ParseInt(&v); !st.ok()) return st;
    if (name == "replica_count") {
      module_->set_replica_count(v);
    } else {
      module_->set_num_partitions(v);
    }
    return absl::OkStatus();
  }
  if (name == "frontend_attributes") return ParseFrontendAttributes(module_->mutable_frontend_attributes());
  std::string raw;
  if (absl::Status st = ParseRawValue(&raw); !st.ok()) return st;
  module_->mutable_raw_attributes()->push_back(HloRawAttribute{std::string(name), std::move(raw)});
  return absl::OkStatus();
}

// A text that is one instruction (`[ROOT] name = shape op(...)` or
// `shape op(...)`): XLA's parser makes it the root of an entry computation
// named `_`, its unknown operands parameters in order of appearance, and
// schedules the module.
// Parameters are numbered 0..n-1 (a single instruction's explicit parameter(k)
// included); the error points at `offset`, the computation's name.
absl::Status Parser::CheckParameterNumbering(const HloComputation& computation, size_t offset) {
  const auto& params = computation.parameter_instructions();
  for (size_t p = 0; p < params.size(); ++p) {
    if (params[p] == nullptr) {
      return Error(
          offset, StrCat("computation '", computation.name(), "' has parameter(", params.size() - 1,
                         ") but no parameter(", p, "); parameters must be numbered 0..n-1"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> Parser::ParseSingleInstructionModule() {
  module_ = std::make_unique<HloModule>("_");
  auto computation = std::make_unique<HloComputation>("_");
  single_instruction_ = true;
  instructions_.clear();
  HloInstruction* root = nullptr;
  if (AtShape()) {
    if (absl::Status st = ParseInstructionRhs(computation.get(), "_", lexer_.Peek().offset,
                                              /*nested=*/false, &root);
        !st.ok()) {
      return st;
    }
  } else {
    size_t root_offset = 0;
    if (absl::Status st = ParseInstruction(computation.get(), &root, &root_offset); !st.ok()) return st;
    if (root == nullptr) root = last_added_;
  }
  if (lexer_.kind() != TokKind::kEof) {
    return Unexpected("the end of input after a single instruction (an HLO module starts with "
                      "'HloModule' or a computation)");
  }
  computation->set_root_instruction(root);
  if (absl::Status st = CheckParameterNumbering(*computation, 0); !st.ok()) return st;
  HloComputation* entry = module_->AddComputation(std::move(computation), true, /*uniquify_names=*/false);
  entry_ = entry;
  if (absl::Status st = ResolveCalls(); !st.ok()) return st;
  if (absl::Status st = ExpandAsyncSugar(); !st.ok()) return st;
  HloSchedule schedule(module_.get());
  for (HloComputation* c : module_->MakeNonfusionComputations()) {
    schedule.set_sequence(c, c->MakeInstructionVector());
  }
  if (absl::Status st = module_->set_schedule(std::move(schedule)); !st.ok()) {
    return Error(0, StdView(st.message()));
  }
  return std::move(module_);
}

absl::StatusOr<std::unique_ptr<HloModule>> Parser::ParseModule() {
  bool has_header = false;
  // Not a module (no header, no `ENTRY`, no `name {` / `name (`): one
  // instruction.
  if (!AtName("HloModule") && !AtName("ENTRY") && lexer_.kind() != TokKind::kEof) {
    HloLexer probe(src_, lexer_.Peek().end(), src_.size());
    const bool computation_next = lexer_.kind() == TokKind::kName && !AtShape() &&
                                  (probe.kind() == TokKind::kLbrace || probe.kind() == TokKind::kLparen);
    if (!computation_next) return ParseSingleInstructionModule();
  }
  if (AtName("HloModule")) {
    lexer_.Next();
    if (lexer_.kind() != TokKind::kName) return Unexpected("a module name");
    module_ = std::make_unique<HloModule>(std::string(StripPercent(lexer_.Next().text)));
    has_header = true;
    // Older XLA wrote `HloModule name:`; XLA's parser still takes it.
    TryConsume(TokKind::kColon);
    while (lexer_.kind() == TokKind::kComma) {
      lexer_.Next();
      if (absl::Status st = ParseModuleAttribute(); !st.ok()) return st;
    }
    if (absl::Status st = ParseStackFrameTables(); !st.ok()) return st;
  } else {
    module_ = std::make_unique<HloModule>("");
  }
  while (lexer_.kind() != TokKind::kEof) {
    if (lexer_.kind() == TokKind::kError) return ErrorHere(lexer_.Peek().text);
    if (AtName("HloModule")) {
      return ErrorHere("a second HloModule header; use ParseHloModules for files with several modules");
    }
    if (absl::Status st = ParseComputation(); !st.ok()) return st;
  }
  if (module_->computation_count() == 0) {
    return ErrorHere("no computations: expected an ENTRY computation");
  }
  if (absl::Status st = ResolveCalls(); !st.ok()) return st;
  if (absl::Status st = ExpandAsyncSugar(); !st.ok()) return st;
  if (entry_ == nullptr) {
    // Without ENTRY the last computation is the entry.
    HloComputation* last = nullptr;
    for (HloComputation* c : module_->computations()) last = c;
    entry_ = last;
  }
  module_->set_entry_computation(entry_);
  if (!has_header) module_->set_name(entry_->name());
  if (module_->has_explicit_entry_computation_layout()) {
    const ComputationLayout layout = module_->entry_computation_layout();
    if (layout.parameter_count() != entry_->num_parameters()) {
      return Error(entry_layout_offset_,
                   StrCat("entry_computation_layout has ", layout.parameter_count(),
                                " parameter(s) but the entry computation '", entry_->name(),
                                "' has ", entry_->num_parameters()));
    }
  }
  if (is_scheduled_) {
    HloSchedule schedule(module_.get());
    for (HloComputation* c : module_->MakeNonfusionComputations()) {
      schedule.set_sequence(c, c->MakeInstructionVector());
    }
    if (absl::Status st = module_->set_schedule(std::move(schedule)); !st.ok()) {
      return Error(0, StrCat("is_scheduled=true but the text order is not a valid schedule: ",
                                   AbslView(StdView(st.message()))));
    }
  }
  return std::move(module_);
}

absl::StatusOr<Shape> Parser::ParseStandaloneShape() {
  Shape s;
  if (absl::Status st = ParseShape(&s); !st.ok()) return st;
  if (lexer_.kind() != TokKind::kEof) return Unexpected("end of input after the shape");
  return s;
}

absl::StatusOr<Layout> Parser::ParseStandaloneLayout() {
  // Rank is implied by the layout itself here.
  const size_t start = lexer_.Peek().offset;
  int64_t rank = 0;
  {
    HloLexer probe(src_, start, src_.size());
    if (probe.kind() == TokKind::kLbrace) {
      probe.Next();
      while (probe.kind() == TokKind::kInt) {
        ++rank;
        probe.Next();
        if (probe.kind() != TokKind::kComma) break;
        probe.Next();
      }
    }
  }
  std::vector<int64_t> dims(rank, 1);
  Shape s(PrimitiveType::F32, dims);
  Layout layout;
  if (absl::Status st = ParseLayout(s, &layout); !st.ok()) return st;
  if (lexer_.kind() != TokKind::kEof) return Unexpected("end of input after the layout");
  return layout;
}

absl::StatusOr<Literal> Parser::ParseStandaloneLiteral(const Shape& shape) {
  Literal lit;
  if (absl::Status st = ParseLiteral(shape, &lit); !st.ok()) return st;
  if (lexer_.kind() != TokKind::kEof) return Unexpected("end of input after the literal");
  return lit;
}

absl::StatusOr<std::string> ReadFile(std::string_view path) {
  std::ifstream in{std::string(path), std::ios::binary};
  if (!in) return absl::NotFoundError(StrCat("cannot open ", AbslView(path)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
      if (absl::Status st = parse_part(part_begin, line_begin); !st.ok()) return st;
      part_begin = line_end;
    }
    line_begin = line_end + 1;
  }
  if (absl::Status st = parse_part(part_begin, text.size()); !st.ok()) return st;
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
