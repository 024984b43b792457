// The HLO text parser: operands, instructions and computations.

#include "hlo_text_parser.h"

namespace hmo::text_internal {

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
    return ErrorHere(
        StrCat("maximum nesting depth (", kMaxNestingDepth,
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
    HMO_RETURN_IF_ERROR(ParseInt(&index));
    const Shape& tuple = (*value)->shape();
    if (!tuple.IsTuple()) {
      return Error(index_offset, StrCat("'", (*value)->name(), "#", index, "': ", (*value)->name(),
                                        " is not a tuple (", tuple.ToString(true), ")"));
    }
    if (index < 0 || index >= tuple.tuple_shapes_size()) {
      return Error(index_offset, StrCat("'", (*value)->name(), "#", index,
                                        "': index out of range for ", tuple.ToString(true)));
    }
    auto key = std::make_pair(*value, index);
    auto it = compact_tuple_elements_.find(key);
    if (it == compact_tuple_elements_.end()) {
      auto gte =
          HloInstruction::Create(HloOpcode::kGetTupleElement, tuple.tuple_shapes(index), {*value});
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
  for (int n = 1; instructions_.contains(AbslView(name)); ++n)
    name = StrCat(AbslView(base), ".", n);
  return name;
}

// An operand: `[shape] name[#i...]`, or a nested instruction
// `[shape] opcode(...)` (added before its user, named `<opcode>.anon`). In a
// single-instruction text, unknown names and bare shapes become parameters.
absl::Status Parser::ParseOperand(HloComputation* computation, HloInstruction** operand) {
  HMO_RETURN_IF_ERROR(EnterNesting());
  absl::Cleanup leave = [&] { --nesting_depth_; };
  const size_t operand_offset = lexer_.Peek().offset;
  Shape written_storage;
  const Shape* written = nullptr;
  if (AtShape()) {
    HMO_RETURN_IF_ERROR(ParseShapeView(&written_storage, &written));
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
      return Error(t.offset, StrCat("operand '", AbslView(name),
                                    "' has no shape: a single-instruction "
                                    "text needs the shapes of its operands to make parameters"));
    }
    if (absl::Status st = AddImplicitParameter(computation, name, *written, operand_offset, &value);
        !st.ok()) {
      return st;
    }
    written = nullptr;
  } else {
    return Error(t.offset, StrCat("undefined operand '", AbslView(name), "'"));
  }
  HMO_RETURN_IF_ERROR(ParseCompactTupleIndices(computation, &value));
  if (written && !ShapeUtil::Compatible(*written, value->shape())) {
    return Error(operand_offset, StrCat("operand '", value->name(), "' is written with shape ",
                                        written->ToString(true), " but is defined with shape ",
                                        value->shape().ToString(true)));
  }
  *operand = value;
  return absl::OkStatus();
}

absl::Status Parser::AddImplicitParameter(HloComputation* computation, std::string_view name,
                                          const Shape& shape, size_t offset, HloInstruction** out) {
  if (instructions_.contains(AbslView(name))) {
    return Error(offset, StrCat("duplicate instruction name '", AbslView(name), "'"));
  }
  auto param =
      HloInstruction::CreateParameter(next_implicit_parameter_++, shape, std::string(name));
  HloInstruction* added = computation->AddInstruction(std::move(param));
  instructions_.emplace(AbslView(added->name()), added);
  *out = added;
  return absl::OkStatus();
}

absl::Status Parser::ParseOperands(HloComputation* computation, HloInstruction* instr) {
  HMO_RETURN_IF_ERROR(EnterNesting());
  absl::Cleanup leave = [&] { --nesting_depth_; };
  bool first = true;
  while (lexer_.kind() != TokKind::kRparen) {
    if (!first) {
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or ')' in operand list"));
    }
    first = false;
    HloInstruction* operand = nullptr;
    HMO_RETURN_IF_ERROR(ParseOperand(computation, &operand));
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
  HMO_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'=' after the instruction name"));
  HloInstruction* added = nullptr;
  if (absl::Status st =
          ParseInstructionRhs(computation, name, name_tok.offset, /*nested=*/false, &added);
      !st.ok()) {
    return st;
  }
  if (is_root) {
    if (*root != nullptr) {
      return Error(root_kw_offset,
                   StrCat("computation '", computation->name(), "' has more than one ROOT"));
    }
    *root = added;
    *root_offset = root_kw_offset;
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseInstructionRhs(HloComputation* computation, std::string_view name,
                                         size_t name_offset, bool nested, HloInstruction** out) {
  HMO_RETURN_IF_ERROR(EnterNesting());
  absl::Cleanup leave = [&] { --nesting_depth_; };
  std::optional<Shape> written_shape;
  if (AtShape()) {
    Shape s;
    HMO_RETURN_IF_ERROR(ParseShape(&s));
    written_shape = std::move(s);
  }
  if (lexer_.kind() != TokKind::kName)
    return Unexpected(written_shape ? "an opcode" : "a shape or an opcode");
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
  if (!written_shape &&
      (*opcode == HloOpcode::kParameter || *opcode == HloOpcode::kConstant || sugar_start)) {
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
    HMO_RETURN_IF_ERROR(ParseInt(&n));
    if (n < 0) return Error(lexer_.prev_end() - 1, "parameter number must not be negative");
    // Parameters are numbered 0..n-1, so parameter(n) needs n+1 parameter
    // instructions; checked before anything is sized from n (a small gap is
    // reported with the computation, which names the missing number).
    if (n >= MaxParameterCount() && n >= kSmallParameterNumber) {
      return Error(lexer_.prev_end() - 1,
                   StrCat("parameter(", n, ") cannot be numbered: the input has at most ",
                          MaxParameterCount(),
                          " parameter instruction(s), and parameters are numbered 0..n-1"));
    }
    instr->set_parameter_number(n);
    HMO_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
  } else if (*opcode == HloOpcode::kConstant) {
    Literal literal;
    HMO_RETURN_IF_ERROR(ParseLiteral(shape, &literal));
    instr->set_literal(std::move(literal));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the literal"));
  } else {
    HMO_RETURN_IF_ERROR(ParseOperands(computation, instr.get()));
  }
  // async-update may bind further operands of its wrapped computation
  // (XLA's late binding), so its operand count is not fixed in the text.
  if (std::optional<int> arity = HloOpcodeArity(*opcode);
      arity && *arity != instr->operand_count() && *opcode != HloOpcode::kParameter &&
      *opcode != HloOpcode::kConstant && *opcode != HloOpcode::kAsyncUpdate) {
    return Error(op_tok.offset,
                 StrCat(AbslView(op_tok.text), " takes ", *arity, " operand",
                        *arity == 1 ? "" : "s", " but has ", instr->operand_count()));
  }
  CallRefs refs;
  std::vector<std::string_view> seen;
  pending_control_predecessors_.clear();
  attribute_offsets_.clear();
  // A nested instruction has no attributes: its commas separate the
  // operands of its user.
  while (!nested && lexer_.kind() == TokKind::kComma) {
    lexer_.Next();
    HMO_RETURN_IF_ERROR(ParseAttribute(instr.get(), &refs, &seen));
  }
  // A scalar broadcast may leave out dimensions={} (XLA prints it back).
  if (*opcode == HloOpcode::kBroadcast && !instr->has_dimensions() && instr->operand_count() == 1 &&
      instr->operand(0)->shape().IsArray() && instr->operand(0)->shape().rank() == 0) {
    instr->set_dimensions({});
    instr->set_has_dimensions(true);
    seen.push_back("dimensions");
  }
  if (lexer_.kind() == TokKind::kError) return ErrorHere(lexer_.Peek().text);
  HMO_RETURN_IF_ERROR(CheckRequiredAttributes(instr.get(), refs, seen, op_tok.offset));
  HMO_RETURN_IF_ERROR(AssignCallSlots(instr.get(), refs));
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
  instr->SetAndSanitizeName(name.empty()
                                ? UniqueLocalName(StrCat(HloOpcodeString(*opcode), ".anon"))
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

absl::StatusOr<Shape> Parser::InferParsedShape(const HloInstruction& instr,
                                               const CallRefs& refs) const {
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
      HMO_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' or ')' in the signature"));
    }
    std::string_view pname;
    HMO_RETURN_IF_ERROR(ParseName("a parameter name", &pname));
    HMO_RETURN_IF_ERROR(Expect(TokKind::kColon, "':' after the parameter name"));
    Shape s;
    HMO_RETURN_IF_ERROR(ParseShape(&s));
    ++*parameter_count;
  }
  lexer_.Next();
  HMO_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->' in the signature"));
  return ParseShape(result);
}

absl::Status Parser::ParseComputation() {
  bool is_entry = false;
  const size_t entry_offset = lexer_.Peek().offset;
  if (AtName("ENTRY")) {
    lexer_.Next();
    is_entry = true;
    if (entry_ != nullptr) {
      return Error(entry_offset,
                   StrCat("multiple ENTRY computations (the first is '", entry_->name(), "')"));
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
    HMO_RETURN_IF_ERROR(ParseSignature(&signature_params, &result));
    signature_result = std::move(result);
  }
  std::unique_ptr<HloComputation> computation;
  if (absl::Status st = ParseComputationBody(name, name_tok.offset, signature_params, &computation);
      !st.ok()) {
    return st;
  }
  if (signature_result &&
      !ShapeUtil::Compatible(*signature_result, computation->root_instruction()->shape())) {
    return Error(name_tok.offset, StrCat("the signature of '", AbslView(name), "' returns ",
                                         signature_result->ToString(false),
                                         ", which is not compatible with its root instruction ",
                                         computation->root_instruction()->name(), ", ",
                                         computation->root_instruction()->shape().ToString(false)));
  }
  if (lexer_.kind() == TokKind::kComma) {
    lexer_.Next();
    if (!AtName("execution_thread")) return Unexpected("execution_thread after a computation");
    lexer_.Next();
    HMO_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
    std::string thread;
    HMO_RETURN_IF_ERROR(ParseString(&thread));
    computation->set_execution_thread(thread);
  }
  HloComputation* added =
      module_->AddComputation(std::move(computation), false, /*uniquify_names=*/false);
  computations_.emplace(AbslView(name), std::make_pair(added, name_tok.offset));
  if (is_entry) entry_ = added;
  return absl::OkStatus();
}

// `{ instructions }` of a computation named `name` (instruction names are
// local to it).
absl::Status Parser::ParseComputationBody(std::string_view name, size_t name_offset,
                                          int64_t signature_params,
                                          std::unique_ptr<HloComputation>* out) {
  HMO_RETURN_IF_ERROR(EnterNesting());
  absl::Cleanup leave = [&] { --nesting_depth_; };
  const size_t lbrace = lexer_.Peek().offset;
  HMO_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start the computation body"));
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
    HMO_RETURN_IF_ERROR(ParseInstruction(computation.get(), &root, &root_offset));
    last = last_added_;
  }
  lexer_.Next();
  if (last == nullptr)
    return Error(name_offset, StrCat("computation '", AbslView(name), "' is empty"));
  computation->set_root_instruction(root != nullptr ? root : last);
  HMO_RETURN_IF_ERROR(CheckParameterNumbering(*computation, name_offset));
  const auto& params = computation->parameter_instructions();
  if (signature_params >= 0 && signature_params != static_cast<int64_t>(params.size())) {
    return Error(name_offset,
                 StrCat("the signature of '", AbslView(name), "' declares ", signature_params,
                        " parameter(s) but the body has ", params.size()));
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
  HloComputation* added =
      module_->AddComputation(std::move(computation), false, /*uniquify_names=*/false);
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
    for (int n = 1; module_->IsNameUsed(comp_name) || computations_.contains(AbslView(comp_name));
         ++n) {
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
        for (int64_t k = 1; k < user->operand_count(); ++k)
          operand_shapes.push_back(user->operand(k)->shape());
        if (user->operand_count() > 1 && user->shape().IsTuple() &&
            user->shape().tuple_shapes_size() > 1) {
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
    if (auto md = wrapped->GetRawAttribute("metadata"))
      start->SetRawAttribute("metadata", std::string(*md));
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
      return Error(c.offset,
                   StrCat(HloOpcodeString(op->opcode()),
                          " expects an asynchronous operation (async-start or async-update) as its "
                          "first operand"));
    }
    const HloInstruction* previous = op->operand(0);
    const HloComputation* wrapped =
        previous->called_computations().empty() ? nullptr : previous->called_computations()[0];
    const HloComputation* own =
        op->called_computations().empty() ? nullptr : op->called_computations()[0];
    if (wrapped != nullptr && own != nullptr && wrapped != own) {
      return Error(c.offset,
                   StrCat("expected the async wrapped computation to be ", wrapped->name(),
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
                                    HloOpcodeString(wrapped->root_instruction()->opcode()),
                                    ", but got ", HloOpcodeString(*c.sugar_opcode)));
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
        return Error(
            where != computations_.end() ? where->second.second : 0,
            StrCat("computation ", wrapped->name(), " is called by more than one async op (",
                   it->second->name(), " and ", i->name(), ")"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace hmo::text_internal
