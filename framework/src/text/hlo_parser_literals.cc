// The HLO text parser: literals, checked against their shape.

#include "hlo_text_parser.h"

namespace hmo::text_internal {

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
    HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' of a complex value"));
    double parts[2];
    for (int k = 0; k < 2; ++k) {
      if (k == 1) {
        HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
      }
      const Token p = lexer_.Peek();
      if (p.kind != TokKind::kInt && p.kind != TokKind::kFloat &&
          !(p.kind == TokKind::kName && (p.text == "inf" || p.text == "nan"))) {
        return Unexpected("a number");
      }
      parts[k] = std::strtod(std::string(p.text).c_str(), nullptr);
      if (absl::Status st =
              CheckFloatInRange(p, parts[k], primitive_util::ComplexComponentType(type));
          !st.ok()) {
        return st;
      }
      lexer_.Next();
    }
    HMO_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
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
    HMO_RETURN_IF_ERROR(CheckFloatInRange(t, v, type));
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
  if (t.kind == TokKind::kName ||
      (t.kind == TokKind::kFloat && (t.text == "-inf" || t.text == "-nan"))) {
    return absl::OkStatus();
  }
  // Rounded to the element type, the value must stay finite (no literal is
  // built per element: constants can be large).
  bool out_of_range = !std::isfinite(value);  // e.g. 1e400 for f64
  if (!out_of_range && type == PrimitiveType::F32) {
    // FLT_MAX plus half an ulp rounds (to even) up to inf.
    out_of_range =
        std::fabs(value) >= static_cast<double>(std::numeric_limits<float>::max()) + 0x1p103;
  } else if (!out_of_range && type != PrimitiveType::F64 && BitWidth(type) <= 16) {
    out_of_range = !std::isfinite(primitive_util::NarrowFloatBitsToDouble(
        type, primitive_util::DoubleToNarrowFloatBits(type, value)));
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
  auto [ptr, ec] =
      hex ? std::from_chars(inside.data() + 2, inside.data() + inside.size(), payload, 16)
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
  HMO_RETURN_IF_ERROR(EnterNesting());
  absl::Cleanup leave = [&] { --nesting_depth_; };
  const size_t brace = lexer_.Peek().offset;
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' of an array literal"));
  int64_t count = 0;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (count > 0) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or '}' in literal"));
    }
    if (dim == shape.rank() - 1) {
      HMO_RETURN_IF_ERROR(ParseElement(literal, (*linear)++));
    } else {
      HMO_RETURN_IF_ERROR(ParseArrayLevel(shape, dim + 1, literal, linear));
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
  HMO_RETURN_IF_ERROR(EnterNesting());
  absl::Cleanup leave = [&] { --nesting_depth_; };
  if (lexer_.CurrentStartsWith("{...}")) {
    *literal = Literal::CreateElided(shape);
    lexer_.Reset(lexer_.Peek().offset + 5);
    return absl::OkStatus();
  }
  if (shape.IsTuple()) {
    HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' of a tuple literal"));
    std::vector<Literal> elements;
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) {
        HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
      }
      // Elements may carry their shape (`(f32[] 1, s32[] 2)`).
      if ((lexer_.kind() == TokKind::kName && lexer_.NextCharIs('[') &&
           primitive_util::StringToPrimitiveType(lexer_.Peek().text)) ||
          (lexer_.kind() == TokKind::kLparen && shape.tuple_shapes(i).IsTuple() && false)) {
        Shape ignored;
        HMO_RETURN_IF_ERROR(ParseShape(&ignored));
      }
      Literal element;
      HMO_RETURN_IF_ERROR(ParseLiteral(shape.tuple_shapes(i), &element));
      elements.push_back(std::move(element));
    }
    HMO_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' closing the tuple literal"));
    *literal = Literal::MakeTuple(std::move(elements));
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return ErrorHere("constants must have an array or tuple shape");
  // Every element is written out (at least one character each), so a shape
  // with more elements than the rest of the input has characters cannot be
  // this literal; checked before the literal's storage is sized from it.
  {
    const int64_t remaining =
        static_cast<int64_t>(src_.size() - std::min(src_.size(), lexer_.Peek().offset));
    int64_t elements = 1;
    bool too_many = false;
    bool empty = false;
    for (int64_t d = 0; d < shape.rank(); ++d) empty = empty || shape.dimensions(d) == 0;
    for (int64_t d = 0; d < shape.rank() && !too_many && !empty; ++d) {
      too_many =
          __builtin_mul_overflow(elements, shape.dimensions(d), &elements) || elements > remaining;
    }
    if (!empty && (too_many || elements > remaining)) {
      return ErrorHere(StrCat("a literal of shape ", shape.ToString(),
                              " needs more elements than the ", remaining,
                              " characters left in the input can hold"));
    }
  }
  Literal lit(shape);
  if (shape.rank() == 0) {
    HMO_RETURN_IF_ERROR(ParseElement(&lit, 0));
  } else {
    int64_t linear = 0;
    HMO_RETURN_IF_ERROR(ParseArrayLevel(shape, 0, &lit, &linear));
  }
  *literal = std::move(lit);
  return absl::OkStatus();
}

}  // namespace hmo::text_internal
