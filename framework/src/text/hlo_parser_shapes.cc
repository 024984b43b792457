// The HLO text parser: shapes and layouts.

#include "hlo_text_parser.h"

namespace hmo::text_internal {

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
  HMO_RETURN_IF_ERROR(ParseShapeView(shape, &parsed));
  if (parsed != shape) *shape = *parsed;
  return absl::OkStatus();
}

absl::Status Parser::ParseShapeView(Shape* scratch, const Shape** out) {
  if (lexer_.kind() == TokKind::kName) {
    const size_t begin = lexer_.Peek().offset;
    const std::string_view source = lexer_.source().substr(0, lexer_.end());
    const size_t end = SimpleArrayShapeTextEnd(source, begin);
    const absl::string_view text =
        end == 0 ? absl::string_view() : AbslView(source.substr(begin, end - begin));
    if (end != 0) {
      if (auto it = shape_by_text_.find(text); it != shape_by_text_.end()) {
        lexer_.SkipTo(end);
        *out = &it->second;
        return absl::OkStatus();
      }
    }
    HMO_RETURN_IF_ERROR(ParseArrayShape(scratch));
    *out = scratch;
    // Cached only when the parser read exactly the scanned text, so a hit
    // gives what parsing would.
    if (end != 0 && lexer_.prev_end() == end) {
      *out = &shape_by_text_.try_emplace(text, *scratch).first->second;
    }
    return absl::OkStatus();
  }
  HMO_RETURN_IF_ERROR(ParseArrayShape(scratch));
  *out = scratch;
  return absl::OkStatus();
}

absl::Status Parser::ParseArrayShape(Shape* shape) {
  HMO_RETURN_IF_ERROR(EnterNesting());
  absl::Cleanup leave = [&] { --nesting_depth_; };
  if (lexer_.kind() == TokKind::kLparen) {
    lexer_.Next();
    std::vector<Shape> elements;
    while (lexer_.kind() != TokKind::kRparen) {
      if (!elements.empty()) {
        HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or ')' in tuple shape"));
      }
      Shape element;
      HMO_RETURN_IF_ERROR(ParseShape(&element));
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
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or ']' in shape dimensions"));
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
    HMO_RETURN_IF_ERROR(ParseInt(&size));
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
  if (lexer_.kind() == TokKind::kLbrace && lexer_.Peek().offset == lexer_.prev_end() &&
      s.IsArray()) {
    Layout layout;
    HMO_RETURN_IF_ERROR(ParseLayout(s, &layout));
    // `{}` on a scalar is the same as no layout; keep one canonical form.
    if (!(s.rank() == 0 && layout.HasOnlyMinorToMajor())) s.set_layout(std::move(layout));
  }
  *shape = std::move(s);
  return absl::OkStatus();
}

absl::Status Parser::ParseLayout(const Shape& shape, Layout* layout) {
  const size_t start = lexer_.Peek().offset;
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  std::vector<int64_t> minor_to_major;
  while (lexer_.kind() == TokKind::kInt) {
    int64_t d;
    HMO_RETURN_IF_ERROR(ParseInt(&d));
    minor_to_major.push_back(d);
    if (!TryConsume(TokKind::kComma)) break;
  }
  *layout->mutable_minor_to_major() = std::move(minor_to_major);
  const std::vector<int64_t>& m2m = layout->minor_to_major();
  auto paren_int = [&](int64_t* v) -> absl::Status {
    HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    HMO_RETURN_IF_ERROR(ParseInt(v));
    return Expect(TokKind::kRparen, "')'");
  };
  auto paren_type = [&](PrimitiveType* t) -> absl::Status {
    HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    if (lexer_.kind() != TokKind::kName) return Unexpected("an element type");
    auto type = primitive_util::StringToPrimitiveType(lexer_.Peek().text);
    if (!type)
      return ErrorHere(StrCat("unknown element type '", AbslView(lexer_.Peek().text), "'"));
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
              HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or ')' in tile"));
            }
            if (lexer_.kind() == TokKind::kOther && lexer_.Peek().text == "*") {
              lexer_.Next();
              tile.mutable_dimensions()->push_back(Tile::kCombineDimension);
            } else {
              int64_t d;
              HMO_RETURN_IF_ERROR(ParseInt(&d));
              tile.mutable_dimensions()->push_back(d);
            }
          }
          lexer_.Next();
          layout->add_tile(std::move(tile));
        }
      } else if (t.kind == TokKind::kName && key == "L") {
        lexer_.Next();
        int64_t v;
        HMO_RETURN_IF_ERROR(paren_int(&v));
        layout->set_tail_padding_alignment_in_elements(v);
      } else if (t.kind == TokKind::kName && key == "E") {
        lexer_.Next();
        int64_t v;
        HMO_RETURN_IF_ERROR(paren_int(&v));
        layout->set_element_size_in_bits(v);
      } else if (t.kind == TokKind::kName && key == "S") {
        lexer_.Next();
        int64_t v;
        HMO_RETURN_IF_ERROR(paren_int(&v));
        layout->set_memory_space(v);
      } else if (t.kind == TokKind::kName && key == "M") {
        lexer_.Next();
        int64_t v;
        HMO_RETURN_IF_ERROR(paren_int(&v));
        layout->set_dynamic_shape_metadata_prefix_bytes(v);
      } else if (t.kind == TokKind::kName && key == "SC") {
        lexer_.Next();
        HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after SC"));
        SplitConfig sc;
        int64_t dim;
        HMO_RETURN_IF_ERROR(ParseInt(&dim));
        sc.set_dimension(dim);
        HMO_RETURN_IF_ERROR(Expect(TokKind::kColon, "':' in split config"));
        while (true) {
          int64_t idx;
          HMO_RETURN_IF_ERROR(ParseInt(&idx));
          sc.mutable_split_indices()->push_back(idx);
          if (!TryConsume(TokKind::kComma)) break;
        }
        HMO_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after split config"));
        layout->add_split_config(std::move(sc));
      } else if (t.kind == TokKind::kName && key == "P") {
        lexer_.Next();
        HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after P"));
        Shape physical;
        HMO_RETURN_IF_ERROR(ParseShape(&physical));
        HMO_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after physical shape"));
        layout->set_physical_shape(physical);
      } else if (t.kind == TokKind::kName && key == "D") {
        lexer_.Next();
        if (lexer_.kind() != TokKind::kLparen) return Unexpected("'(' after D");
        std::string_view inside;
        const size_t at = lexer_.Peek().offset + 1;
        if (!lexer_.ScanBalanced(&inside)) return ErrorHere("unterminated D(...)");
        if (std::string m = text_internal::CheckDimLevelTypes(inside); !m.empty())
          return Error(at, m);
        layout->set_dim_level_types_text(std::string(inside));
      } else if (t.kind == TokKind::kOther && key == "#") {
        lexer_.Next();
        PrimitiveType type;
        HMO_RETURN_IF_ERROR(paren_type(&type));
        layout->set_index_primitive_type(type);
      } else if (t.kind == TokKind::kOther && key == "*") {
        lexer_.Next();
        PrimitiveType type;
        HMO_RETURN_IF_ERROR(paren_type(&type));
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
      return Error(start,
                   "layout has a physical shape P(...) but is not for a sparse array (D(...) "
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

}  // namespace hmo::text_internal
