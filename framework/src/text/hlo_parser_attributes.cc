// The HLO text parser: typed instruction attributes and computation references.

#include "hlo_text_parser.h"

namespace hmo::text_internal {

// ------------------------------------------------------- typed attributes

absl::Status Parser::ParseSlice(HloInstruction* instr) {
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  std::vector<int64_t> starts, limits, strides;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!starts.empty()) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or '}'"));
    }
    HMO_RETURN_IF_ERROR(Expect(TokKind::kLsquare, "'[' of a slice range"));
    int64_t a, b, s = 1;
    HMO_RETURN_IF_ERROR(ParseInt(&a));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kColon, "':'"));
    HMO_RETURN_IF_ERROR(ParseInt(&b));
    if (TryConsume(TokKind::kColon)) {
      HMO_RETURN_IF_ERROR(ParseInt(&s));
    }
    HMO_RETURN_IF_ERROR(Expect(TokKind::kRsquare, "']'"));
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
    while (pos < inside.size() &&
           (inside[pos] == ' ' || inside[pos] == '\t' || inside[pos] == '\n'))
      ++pos;
    if (pos >= inside.size()) break;
    size_t end = pos;
    while (end < inside.size() && inside[end] != ' ' && inside[end] != '\t' && inside[end] != '\n')
      ++end;
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
        ok = lh.size() == 2 && ParseIntText(lh[0], &wd.padding_low) &&
             ParseIntText(lh[1], &wd.padding_high);
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
        return Error(start,
                     StrCat("bad value '", AbslView(value), "' for window field ", AbslView(key)));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseFrontendAttributes(FrontendAttributes* attrs) {
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  bool first = true;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!first) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or '}'"));
    }
    first = false;
    std::string key;
    if (lexer_.kind() == TokKind::kString) {
      HMO_RETURN_IF_ERROR(ParseString(&key));
    } else if (lexer_.kind() == TokKind::kName) {
      key = std::string(lexer_.Next().text);
    } else {
      return Unexpected("a frontend attribute name");
    }
    HMO_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
    std::string value;
    if (lexer_.kind() == TokKind::kLbrace) {
      // A dictionary value (composite.attributes), kept verbatim.
      const size_t open = lexer_.Peek().offset;
      std::string_view inside;
      if (!lexer_.ScanBalanced(&inside))
        return Error(open, "unterminated '{' in frontend attribute value");
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
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!aliases->empty()) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or '}'"));
    }
    OutputOperandAlias a;
    HMO_RETURN_IF_ERROR(ParseShapeIndex(&a.output_index));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kColon, "':'"));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    HMO_RETURN_IF_ERROR(ParseInt(&a.operand_number));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
    HMO_RETURN_IF_ERROR(ParseShapeIndex(&a.operand_index));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
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
      HMO_RETURN_IF_ERROR(ParseInlineComputation(attr, &ref));
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
    HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
    while (lexer_.kind() != TokKind::kRbrace) {
      if (!names.empty()) {
        HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or '}'"));
      }
      HMO_RETURN_IF_ERROR(one());
    }
    lexer_.Next();
  } else {
    HMO_RETURN_IF_ERROR(one());
  }
  refs->by_attr.emplace_back(attr, std::move(names));
  return absl::OkStatus();
}

absl::Status Parser::ParseAttribute(HloInstruction* instr, CallRefs* refs,
                                    std::vector<std::string_view>* seen) {
  if (lexer_.kind() != TokKind::kName) return Unexpected("an attribute name");
  const Token name_tok = lexer_.Next();
  const std::string_view name = name_tok.text;
  if (!AttributeRank(name))
    return Error(name_tok.offset, StrCat("unknown attribute '", AbslView(name), "'"));
  for (std::string_view s : *seen) {
    if (s == name)
      return Error(name_tok.offset, StrCat("duplicate attribute '", AbslView(name), "'"));
  }
  seen->push_back(name);
  HMO_RETURN_IF_ERROR(Expect(TokKind::kEqual, StrCat("'=' after ", AbslView(name))));
  const size_t value_offset = lexer_.Peek().offset;
  attribute_offsets_.emplace_back(name, value_offset);

  // Each group parses the attributes it knows for this opcode; what none
  // knows is kept verbatim.
  HMO_ASSIGN_OR_RETURN(bool parsed, ParseEnumAttribute(instr, name));
  if (!parsed) {
    HMO_ASSIGN_OR_RETURN(parsed, ParseScalarAttribute(instr, name));
  }
  if (!parsed) {
    HMO_ASSIGN_OR_RETURN(parsed, ParseArrayAttribute(instr, name, value_offset));
  }
  if (!parsed) {
    HMO_ASSIGN_OR_RETURN(parsed, ParseDimensionNumbersAttribute(instr, name));
  }
  if (!parsed) {
    HMO_ASSIGN_OR_RETURN(parsed, ParseReferenceAttribute(instr, name, refs));
  }
  if (!parsed) {
    HMO_RETURN_IF_ERROR(ParseRawAttribute(instr, name, value_offset));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Parser::ParseEnumAttribute(HloInstruction* instr, std::string_view name) {
  const HloOpcode op = instr->opcode();
  if (name == "mode" && (op == HloOpcode::kAllReduce || op == HloOpcode::kAllReduceStart ||
                         op == HloOpcode::kReduceScatter)) {
    // XLA reads the collective group mode, checks it and drops it: it is
    // implied by channel_id and use_global_device_ids, and never printed.
    if (lexer_.kind() != TokKind::kName) return Unexpected("a collective op group mode");
    const std::string_view mode = lexer_.Peek().text;
    if (mode != "cross_replica" && mode != "cross_partition" &&
        mode != "cross_replica_and_partition" && mode != "flattened_id") {
      return ErrorHere(StrCat("invalid collective op group mode '", AbslView(mode),
                              "' (cross_replica, cross_partition, cross_replica_and_partition or "
                              "flattened_id)"));
    }
    lexer_.Next();
  } else if (name == "kind" && op == HloOpcode::kFusion) {
    if (lexer_.kind() != TokKind::kName) return Unexpected("a fusion kind");
    auto kind = StringToFusionKind(lexer_.Peek().text);
    if (!kind) return ErrorHere(StrCat("unknown fusion kind ", Describe(lexer_.Peek())));
    lexer_.Next();
    instr->set_fusion_kind(*kind);
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
  } else {
    return false;
  }
  return true;
}

absl::StatusOr<bool> Parser::ParseScalarAttribute(HloInstruction* instr, std::string_view name) {
  const HloOpcode op = instr->opcode();
  const bool gather_or_scatter = op == HloOpcode::kGather || op == HloOpcode::kScatter;
  // Integer attributes and where they go.
  using IntSetter = void (*)(HloInstruction*, int64_t);
  IntSetter set_int = nullptr;
  if (name == "index" && op == HloOpcode::kGetTupleElement) {
    set_int = [](HloInstruction* i, int64_t v) { i->set_tuple_index(v); };
  } else if (name == "iota_dimension") {
    set_int = [](HloInstruction* i, int64_t v) { i->set_iota_dimension(v); };
  } else if (name == "channel_id") {
    set_int = [](HloInstruction* i, int64_t v) { i->set_channel_id(v); };
  } else if (name == "feature_group_count") {
    set_int = [](HloInstruction* i, int64_t v) { i->set_feature_group_count(v); };
  } else if (name == "batch_group_count") {
    set_int = [](HloInstruction* i, int64_t v) { i->set_batch_group_count(v); };
  } else if (name == "index_vector_dim" && op == HloOpcode::kGather) {
    set_int = [](HloInstruction* i, int64_t v) {
      i->mutable_gather_dimension_numbers()->index_vector_dim = v;
    };
  } else if (name == "index_vector_dim" && op == HloOpcode::kScatter) {
    set_int = [](HloInstruction* i, int64_t v) {
      i->mutable_scatter_dimension_numbers()->index_vector_dim = v;
    };
  }
  if (set_int != nullptr) {
    int64_t v;
    HMO_RETURN_IF_ERROR(ParseInt(&v));
    set_int(instr, v);
    return true;
  }
  if ((name == "indices_are_sorted" && gather_or_scatter) ||
      (name == "unique_indices" && op == HloOpcode::kScatter)) {
    bool v;
    HMO_RETURN_IF_ERROR(ParseBool(&v));
    if (name == "unique_indices") {
      instr->set_unique_indices(v);
    } else {
      instr->set_indices_are_sorted(v);
    }
    return true;
  }
  if (name == "custom_call_target") {
    std::string target;
    HMO_RETURN_IF_ERROR(ParseString(&target));
    instr->set_custom_call_target(target);
    return true;
  }
  return false;
}

absl::StatusOr<bool> Parser::ParseArrayAttribute(HloInstruction* instr, std::string_view name,
                                                 size_t value_offset) {
  const HloOpcode op = instr->opcode();
  if (name == "dimensions") {
    std::vector<int64_t> dims;
    HMO_RETURN_IF_ERROR(ParseIntList(&dims));
    instr->set_dimensions(std::move(dims));
    instr->set_has_dimensions(true);
  } else if (name == "slice" && op == HloOpcode::kSlice) {
    HMO_RETURN_IF_ERROR(ParseSlice(instr));
  } else if (name == "dynamic_slice_sizes") {
    std::vector<int64_t> v;
    HMO_RETURN_IF_ERROR(ParseIntList(&v));
    instr->set_dynamic_slice_sizes(std::move(v));
  } else if (name == "padding" && op == HloOpcode::kPad) {
    PaddingConfig p;
    HMO_RETURN_IF_ERROR(ParsePadding(&p));
    instr->set_padding_config(std::move(p));
  } else if (name == "window") {
    Window w;
    HMO_RETURN_IF_ERROR(ParseWindow(&w));
    instr->set_window(std::move(w));
  } else if (name == "dim_labels") {
    std::string_view text = lexer_.ScanRawUntil(",{}()");
    auto dnums = ParseConvolutionDimLabels(text);
    if (!dnums.ok()) return Error(value_offset, StdView(dnums.status().message()));
    instr->set_convolution_dimension_numbers(*dnums, std::string(text));
  } else {
    return false;
  }
  return true;
}

absl::StatusOr<bool> Parser::ParseDimensionNumbersAttribute(HloInstruction* instr,
                                                            std::string_view name) {
  // Where each dimension-number list of dot, ragged-dot, gather and scatter
  // goes; gather's slice_sizes is a field of the instruction.
  std::vector<int64_t>* target = nullptr;
  switch (instr->opcode()) {
    case HloOpcode::kDot:
    case HloOpcode::kRaggedDot: {
      DotDimensionNumbers* d = instr->mutable_dot_dimension_numbers();
      if (name == "lhs_batch_dims") target = &d->lhs_batch_dimensions;
      if (name == "lhs_contracting_dims") target = &d->lhs_contracting_dimensions;
      if (name == "rhs_batch_dims") target = &d->rhs_batch_dimensions;
      if (name == "rhs_contracting_dims") target = &d->rhs_contracting_dimensions;
      break;
    }
    case HloOpcode::kGather: {
      if (name == "slice_sizes") {
        std::vector<int64_t> v;
        HMO_RETURN_IF_ERROR(ParseIntList(&v));
        instr->set_gather_slice_sizes(std::move(v));
        return true;
      }
      GatherDimensionNumbers* d = instr->mutable_gather_dimension_numbers();
      if (name == "offset_dims") target = &d->offset_dims;
      if (name == "collapsed_slice_dims") target = &d->collapsed_slice_dims;
      if (name == "start_index_map") target = &d->start_index_map;
      if (name == "operand_batching_dims") target = &d->operand_batching_dims;
      if (name == "start_indices_batching_dims") target = &d->start_indices_batching_dims;
      break;
    }
    case HloOpcode::kScatter: {
      ScatterDimensionNumbers* d = instr->mutable_scatter_dimension_numbers();
      if (name == "update_window_dims") target = &d->update_window_dims;
      if (name == "inserted_window_dims") target = &d->inserted_window_dims;
      if (name == "scatter_dims_to_operand_dims") target = &d->scatter_dims_to_operand_dims;
      if (name == "input_batching_dims") target = &d->input_batching_dims;
      if (name == "scatter_indices_batching_dims") target = &d->scatter_indices_batching_dims;
      break;
    }
    default:
      break;
  }
  if (target == nullptr) return false;
  std::vector<int64_t> v;
  HMO_RETURN_IF_ERROR(ParseIntList(&v));
  *target = std::move(v);
  return true;
}

absl::StatusOr<bool> Parser::ParseReferenceAttribute(HloInstruction* instr, std::string_view name,
                                                     CallRefs* refs) {
  const HloOpcode op = instr->opcode();
  if (name == "output_to_operand_aliasing") {
    std::vector<OutputOperandAlias> aliases;
    HMO_RETURN_IF_ERROR(ParseOutputOperandAliasing(&aliases));
    instr->set_output_to_operand_aliasing(std::move(aliases));
  } else if (name == "frontend_attributes") {
    FrontendAttributes attrs;
    HMO_RETURN_IF_ERROR(ParseFrontendAttributes(&attrs));
    instr->set_frontend_attributes(std::move(attrs));
  } else if (name == "condition" || name == "body" || name == "true_computation" ||
             name == "false_computation" || name == "to_apply" ||
             (name == "calls" && lexer_.kind() != TokKind::kLbrace) ||
             (op == HloOpcode::kSelectAndScatter && (name == "select" || name == "scatter"))) {
    HMO_RETURN_IF_ERROR(ParseComputationRefs(name, /*list=*/false, refs));
  } else if (name == "branch_computations" || name == "called_computations" || name == "calls") {
    HMO_RETURN_IF_ERROR(ParseComputationRefs(name, /*list=*/true, refs));
  } else if (name == "control-predecessors") {
    HMO_RETURN_IF_ERROR(ParseControlPredecessors());
  } else {
    return false;
  }
  return true;
}

absl::Status Parser::ParseControlPredecessors() {
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  bool first = true;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!first) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or '}'"));
    }
    first = false;
    if (lexer_.kind() != TokKind::kName) return Unexpected("an instruction name");
    const Token t = lexer_.Next();
    auto it = instructions_.find(AbslView(StripPercent(t.text)));
    if (it == instructions_.end()) {
      return Error(t.offset,
                   StrCat("undefined control predecessor '", AbslView(StripPercent(t.text)), "'"));
    }
    // Edges are added once the instruction joins the computation.
    pending_control_predecessors_.push_back(it->second);
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseRawAttribute(HloInstruction* instr, std::string_view name,
                                       size_t value_offset) {
  std::string raw;
  HMO_RETURN_IF_ERROR(ParseRawValue(&raw));
  if (name == "metadata") {
    const int64_t frame = StackFrameIdFromMetadata(raw);
    // XLA's own tests write stack_frame_id without tables; with tables,
    // the id must name one of their frames.
    const StackFrameIndex& index = module_->stack_frame_index();
    if (frame != 0 && !index.empty() && !index.HasFrame(frame)) {
      const size_t at = value_offset + raw.find("stack_frame_id=");
      return Error(
          at, StrCat("stack_frame_id=", frame, " does not name a frame of the StackFrames table (",
                     index.stack_frames().size(), " frames)"));
    }
  }
  instr->SetRawAttribute(name, std::move(raw));
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
    case HloOpcode::kGetTupleElement:
      return require({"index"});
    case HloOpcode::kFusion:
      return require({"kind", "calls"});
    case HloOpcode::kWhile:
      return require({"condition", "body"});
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
        HMO_RETURN_IF_ERROR(require({"dimensions"}));
      }
      if (instr->opcode() == HloOpcode::kReduceWindow) {
        // Over scalars the window has no dimensions and may be left out.
        bool all_scalar = true;
        for (const HloInstruction* operand : instr->operands()) {
          all_scalar &= operand->shape().IsArray() && operand->shape().rank() == 0;
        }
        if (!all_scalar) {
          HMO_RETURN_IF_ERROR(require({"window"}));
        }
      }
      return require({"to_apply"});
    case HloOpcode::kScan:
      return require({"dimensions", "num_carries", "to_apply"});
    case HloOpcode::kScatter:
      return require({"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
                      "index_vector_dim", "to_apply"});
    case HloOpcode::kSelectAndScatter:
      return require({"select", "scatter"});
    case HloOpcode::kAsyncStart:
      return require({"calls"});
    case HloOpcode::kCustomCall:
      return require({"custom_call_target"});
    case HloOpcode::kCompare:
      return require({"direction"});
    case HloOpcode::kIota:
      return require({"iota_dimension"});
    case HloOpcode::kSlice:
      return require({"slice"});
    case HloOpcode::kDynamicSlice:
      return require({"dynamic_slice_sizes"});
    case HloOpcode::kPad:
      return require({"padding"});
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kConcatenate:
      return require({"dimensions"});
    case HloOpcode::kGather:
      return require({"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
                      "slice_sizes"});
    case HloOpcode::kConvolution:
      return require({"dim_labels"});
    default:
      return absl::OkStatus();
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

}  // namespace hmo::text_internal
