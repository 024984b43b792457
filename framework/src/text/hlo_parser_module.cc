// The HLO text parser: the module header, stack-frame tables, the module, and
// the standalone shape, layout and literal texts.

#include "hlo_text_parser.h"

namespace hmo::text_internal {

// ---------------------------------------------------------- module header

absl::Status Parser::ParseEntryComputationLayout() {
  entry_layout_offset_ = lexer_.Peek().offset;
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
  std::vector<Shape> params;
  while (lexer_.kind() != TokKind::kRparen) {
    if (!params.empty()) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or ')'"));
    }
    Shape s;
    HMO_RETURN_IF_ERROR(ParseShape(&s));
    params.push_back(std::move(s));
  }
  lexer_.Next();
  HMO_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->'"));
  Shape result;
  HMO_RETURN_IF_ERROR(ParseShape(&result));
  HMO_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}'"));
  module_->set_entry_computation_layout(ComputationLayout(std::move(params), std::move(result)));
  return absl::OkStatus();
}

absl::Status Parser::ParseInputOutputAlias() {
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  bool first = true;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!first) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or '}'"));
    }
    first = false;
    const size_t entry_offset = lexer_.Peek().offset;
    ShapeIndex out, param_index;
    int64_t param;
    HMO_RETURN_IF_ERROR(ParseShapeIndex(&out));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kColon, "':'"));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    HMO_RETURN_IF_ERROR(ParseInt(&param));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
    HMO_RETURN_IF_ERROR(ParseShapeIndex(&param_index));
    auto kind = HloInputOutputAliasConfig::kMayAlias;
    if (TryConsume(TokKind::kComma)) {
      if (AtName("must-alias")) {
        kind = HloInputOutputAliasConfig::kMustAlias;
      } else if (!AtName("may-alias")) {
        return Unexpected("may-alias or must-alias");
      }
      lexer_.Next();
    }
    HMO_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
    absl::Status st =
        module_->input_output_alias_config().SetUpAlias(out, param, param_index, kind);
    if (!st.ok()) return Error(entry_offset, StdView(st.message()));
  }
  lexer_.Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseBufferDonor() {
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  bool first = true;
  while (lexer_.kind() != TokKind::kRbrace) {
    if (!first) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or '}'"));
    }
    first = false;
    const size_t entry_offset = lexer_.Peek().offset;
    int64_t param;
    ShapeIndex index;
    HMO_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    HMO_RETURN_IF_ERROR(ParseInt(&param));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
    HMO_RETURN_IF_ERROR(ParseShapeIndex(&index));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
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
  const int64_t existing = names ? static_cast<int64_t>(names->size())
                           : table == "FileLocations"
                               ? static_cast<int64_t>(index->file_locations().size())
                               : static_cast<int64_t>(index->stack_frames().size());
  if (existing != 0) return ErrorHere(StrCat("a second ", AbslView(table), " table"));
  lexer_.Next();
  int64_t expected = 1;
  while (lexer_.kind() == TokKind::kInt) {
    const size_t entry_offset = lexer_.Peek().offset;
    int64_t id;
    HMO_RETURN_IF_ERROR(ParseInt(&id));
    if (id != expected) {
      return Error(entry_offset, StrCat(AbslView(table), " entry has id ", id, ", expected ",
                                        expected, " (ids count from 1 in order)"));
    }
    ++expected;
    if (table == "FileNames" || table == "FunctionNames") {
      std::string value;
      HMO_RETURN_IF_ERROR(ParseString(&value));
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
      if (absl::Status st = ParseTableFields(table, {{"file_location_id", &f.file_location_id},
                                                     {"parent_frame_id", &written_parent}});
          !st.ok()) {
        return st;
      }
      if (written_parent < 1) {
        return Error(entry_offset,
                     StrCat("parent_frame_id=", written_parent,
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
    if (lexer_.kind() != TokKind::kName)
      return Unexpected(StrCat("a ", AbslView(table), " field or '}'"));
    const Token key = lexer_.Next();
    size_t k = 0;
    while (k < fields.size() && fields[k].first != key.text) ++k;
    if (k == fields.size()) {
      return Error(key.offset,
                   StrCat("unknown ", AbslView(table), " field '", AbslView(key.text), "'"));
    }
    if (seen[k]) return Error(key.offset, StrCat("duplicate field '", AbslView(key.text), "'"));
    seen[k] = true;
    if (absl::Status st = Expect(TokKind::kEqual, StrCat("'=' after ", AbslView(key.text)));
        !st.ok()) {
      return st;
    }
    HMO_RETURN_IF_ERROR(ParseInt(fields[k].second));
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
    HMO_RETURN_IF_ERROR(ParseStackFrameTable(table));
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
    if (l.function_name_id < 1 ||
        l.function_name_id > static_cast<int64_t>(index.function_names().size())) {
      return Error(file_location_offsets_[i], StrCat("function_name_id=", l.function_name_id,
                                                     " does not name an entry of FunctionNames (",
                                                     index.function_names().size(), " entries)"));
    }
  }
  for (size_t i = 0; i < index.stack_frames().size(); ++i) {
    const StackFrame& f = index.stack_frames()[i];
    if (f.file_location_id < 1 ||
        f.file_location_id > static_cast<int64_t>(index.file_locations().size())) {
      return Error(stack_frame_offsets_[i], StrCat("file_location_id=", f.file_location_id,
                                                   " does not name an entry of FileLocations (",
                                                   index.file_locations().size(), " entries)"));
    }
    if (f.parent_frame_id >= static_cast<int64_t>(i) + 1) {
      return Error(
          stack_frame_offsets_[i],
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
  HMO_RETURN_IF_ERROR(Expect(TokKind::kEqual, StrCat("'=' after ", AbslView(name))));
  using Attribute = HloModule::HeaderAttribute;
  for (const auto& [text, attribute] :
       {std::pair{"entry_computation_layout", Attribute::kEntryComputationLayout},
        std::pair{"input_output_alias", Attribute::kInputOutputAlias},
        std::pair{"buffer_donor", Attribute::kBufferDonor},
        std::pair{"is_scheduled", Attribute::kIsScheduled}}) {
    if (name == text) module_->set_header_location(attribute, LocationOf(name_tok.offset));
  }
  if (name == "is_scheduled") return ParseBool(&is_scheduled_);
  if (name == "entry_computation_layout") return ParseEntryComputationLayout();
  if (name == "input_output_alias") return ParseInputOutputAlias();
  if (name == "buffer_donor") return ParseBufferDonor();
  if (name == "alias_passthrough_params") {
    bool v;
    HMO_RETURN_IF_ERROR(ParseBool(&v));
    module_->set_alias_passthrough_params(v);
    return absl::OkStatus();
  }
  if (name == "replica_count" || name == "num_partitions") {
    int64_t v;
    HMO_RETURN_IF_ERROR(ParseInt(&v));
    if (name == "replica_count") {
      module_->set_replica_count(v);
    } else {
      module_->set_num_partitions(v);
    }
    return absl::OkStatus();
  }
  if (name == "frontend_attributes")
    return ParseFrontendAttributes(module_->mutable_frontend_attributes());
  std::string raw;
  HMO_RETURN_IF_ERROR(ParseRawValue(&raw));
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
    HMO_RETURN_IF_ERROR(ParseInstruction(computation.get(), &root, &root_offset));
    if (root == nullptr) root = last_added_;
  }
  if (lexer_.kind() != TokKind::kEof) {
    return Unexpected(
        "the end of input after a single instruction (an HLO module starts with "
        "'HloModule' or a computation)");
  }
  computation->set_root_instruction(root);
  HMO_RETURN_IF_ERROR(CheckParameterNumbering(*computation, 0));
  HloComputation* entry =
      module_->AddComputation(std::move(computation), true, /*uniquify_names=*/false);
  entry_ = entry;
  HMO_RETURN_IF_ERROR(ResolveCalls());
  HMO_RETURN_IF_ERROR(ExpandAsyncSugar());
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
    const bool computation_next =
        lexer_.kind() == TokKind::kName && !AtShape() &&
        (probe.kind() == TokKind::kLbrace || probe.kind() == TokKind::kLparen);
    if (!computation_next) return ParseSingleInstructionModule();
  }
  if (AtName("HloModule")) {
    lexer_.Next();
    if (lexer_.kind() != TokKind::kName) return Unexpected("a module name");
    const Token name_tok = lexer_.Next();
    module_ = std::make_unique<HloModule>(std::string(StripPercent(name_tok.text)));
    module_->set_header_location(HloModule::HeaderAttribute::kName, LocationOf(name_tok.offset));
    has_header = true;
    // Older XLA wrote `HloModule name:`; XLA's parser still takes it.
    TryConsume(TokKind::kColon);
    while (lexer_.kind() == TokKind::kComma) {
      lexer_.Next();
      HMO_RETURN_IF_ERROR(ParseModuleAttribute());
    }
    HMO_RETURN_IF_ERROR(ParseStackFrameTables());
  } else {
    module_ = std::make_unique<HloModule>("");
  }
  while (lexer_.kind() != TokKind::kEof) {
    if (lexer_.kind() == TokKind::kError) return ErrorHere(lexer_.Peek().text);
    if (AtName("HloModule")) {
      return ErrorHere(
          "a second HloModule header; use ParseHloModules for files with several modules");
    }
    HMO_RETURN_IF_ERROR(ParseComputation());
  }
  if (module_->computation_count() == 0) {
    return ErrorHere("no computations: expected an ENTRY computation");
  }
  HMO_RETURN_IF_ERROR(ResolveCalls());
  HMO_RETURN_IF_ERROR(ExpandAsyncSugar());
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
                          " parameter(s) but the entry computation '", entry_->name(), "' has ",
                          entry_->num_parameters()));
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
  HMO_RETURN_IF_ERROR(ParseShape(&s));
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
  HMO_RETURN_IF_ERROR(ParseLayout(s, &layout));
  if (lexer_.kind() != TokKind::kEof) return Unexpected("end of input after the layout");
  return layout;
}

absl::StatusOr<Literal> Parser::ParseStandaloneLiteral(const Shape& shape) {
  Literal lit;
  HMO_RETURN_IF_ERROR(ParseLiteral(shape, &lit));
  if (lexer_.kind() != TokKind::kEof) return Unexpected("end of input after the literal");
  return lit;
}

}  // namespace hmo::text_internal
