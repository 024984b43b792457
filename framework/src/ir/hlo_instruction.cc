#include "hmo/ir/hlo_instruction.h"
#include "str_cat.h"

#include <algorithm>
#include <deque>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_printer.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;

std::string_view FusionKindString(FusionKind kind) {
  switch (kind) {
    case FusionKind::kLoop: return "kLoop";
    case FusionKind::kInput: return "kInput";
    case FusionKind::kOutput: return "kOutput";
    case FusionKind::kCustom: return "kCustom";
  }
  return "kLoop";
}

std::optional<FusionKind> StringToFusionKind(std::string_view s) {
  if (s == "kLoop") return FusionKind::kLoop;
  if (s == "kInput") return FusionKind::kInput;
  if (s == "kOutput") return FusionKind::kOutput;
  if (s == "kCustom") return FusionKind::kCustom;
  return std::nullopt;
}

HloInstruction::HloInstruction(HloOpcode opcode, const Shape& shape) : opcode_(opcode), shape_(shape) {}

HloInstruction::~HloInstruction() {
  // An instruction owned by a computation is detached by the computation;
  // one that was never added must not leave dangling user edges behind.
  if (parent_ == nullptr) DetachFromOperands();
}

std::unique_ptr<HloInstruction> HloInstruction::Create(HloOpcode opcode, const Shape& shape,
                                                       absl::Span<HloInstruction* const> operands) {
  std::unique_ptr<HloInstruction> instr(new HloInstruction(opcode, shape));
  for (HloInstruction* op : operands) instr->AppendOperand(op);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateParameter(int64_t parameter_number,
                                                                const Shape& shape,
                                                                std::string_view name) {
  auto instr = Create(HloOpcode::kParameter, shape, {});
  instr->parameter_number_ = parameter_number;
  instr->SetAndSanitizeName(name);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateConstant(Literal literal) {
  auto instr = Create(HloOpcode::kConstant, literal.shape(), {});
  instr->set_literal(std::move(literal));
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateGetTupleElement(HloInstruction* operand,
                                                                      int64_t index) {
  return CreateGetTupleElement(operand->shape().tuple_shapes(index), operand, index);
}

std::unique_ptr<HloInstruction> HloInstruction::CreateGetTupleElement(const Shape& shape,
                                                                      HloInstruction* operand,
                                                                      int64_t index) {
  auto instr = Create(HloOpcode::kGetTupleElement, shape, {operand});
  instr->tuple_index_ = index;
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateTuple(
    absl::Span<HloInstruction* const> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (HloInstruction* e : elements) shapes.push_back(e->shape());
  return Create(HloOpcode::kTuple, Shape(std::move(shapes)), elements);
}

std::unique_ptr<HloInstruction> HloInstruction::CreateUnary(const Shape& shape, HloOpcode opcode,
                                                            HloInstruction* operand) {
  return Create(opcode, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateBinary(const Shape& shape, HloOpcode opcode,
                                                             HloInstruction* lhs,
                                                             HloInstruction* rhs) {
  return Create(opcode, shape, {lhs, rhs});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateCustomCall(
    const Shape& shape, absl::Span<HloInstruction* const> operands,
    std::string_view custom_call_target) {
  auto instr = Create(HloOpcode::kCustomCall, shape, operands);
  instr->custom_call_target_ = std::string(custom_call_target);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateFusion(
    const Shape& shape, FusionKind kind, absl::Span<HloInstruction* const> operands,
    HloComputation* fused_computation) {
  auto instr = Create(HloOpcode::kFusion, shape, operands);
  instr->fusion_kind_ = kind;
  instr->called_computations_ = {fused_computation};
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateCall(
    const Shape& shape, absl::Span<HloInstruction* const> operands, HloComputation* computation) {
  auto instr = Create(HloOpcode::kCall, shape, operands);
  instr->called_computations_ = {computation};
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateDynamicSlice(
    const Shape& shape, HloInstruction* operand, absl::Span<HloInstruction* const> start_indices,
    std::vector<int64_t> slice_sizes) {
  auto instr = Create(HloOpcode::kDynamicSlice, shape, {operand});
  for (HloInstruction* i : start_indices) instr->AppendOperand(i);
  instr->dynamic_slice_sizes_ = std::move(slice_sizes);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateDynamicUpdateSlice(
    const Shape& shape, HloInstruction* operand, HloInstruction* update,
    absl::Span<HloInstruction* const> start_indices) {
  auto instr = Create(HloOpcode::kDynamicUpdateSlice, shape, {operand, update});
  for (HloInstruction* i : start_indices) instr->AppendOperand(i);
  return instr;
}

void HloInstruction::SetAndSanitizeName(std::string_view name) {
  name_.assign(name.data(), name.size());
  for (char& c : name_) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) c = '_';
  }
}

std::vector<HloInstruction*> HloInstruction::unique_operands() const {
  std::vector<HloInstruction*> out;
  for (HloInstruction* op : operands_) {
    if (std::find(out.begin(), out.end(), op) == out.end()) out.push_back(op);
  }
  return out;
}

int64_t HloInstruction::operand_index(const HloInstruction* target) const {
  for (size_t i = 0; i < operands_.size(); ++i) {
    if (operands_[i] == target) return static_cast<int64_t>(i);
  }
  return -1;
}

std::vector<int64_t> HloInstruction::OperandIndices(const HloInstruction* target) const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < operands_.size(); ++i) {
    if (operands_[i] == target) out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  operands_.push_back(operand);
  operand->AddUser(this);
}

// Below this many users a linear scan is cheaper than a hash set.
constexpr size_t kUserIndexThreshold = 16;

bool HloInstruction::HasUser(const HloInstruction* user) const {
  if (user_index_ != nullptr) return user_index_->contains(user);
  return std::find(users_.begin(), users_.end(), user) != users_.end();
}

void HloInstruction::AddUser(HloInstruction* user) {
  if (HasUser(user)) return;
  users_.push_back(user);
  if (user_index_ != nullptr) {
    user_index_->insert(user);
  } else if (users_.size() > kUserIndexThreshold) {
    user_index_ =
        std::make_unique<absl::flat_hash_set<const HloInstruction*>>(users_.begin(), users_.end());
  }
}

void HloInstruction::RemoveUser(HloInstruction* user) {
  if (!HasUser(user)) return;
  // Erase, not swap-and-pop: passes and analyses see users in insertion order.
  users_.erase(std::find(users_.begin(), users_.end(), user));
  if (user_index_ != nullptr) user_index_->erase(user);
}

bool HloInstruction::IsUserOf(const HloInstruction* operand) const {
  return operand->HasUser(this);
}

void HloInstruction::DetachFromOperands() {
  for (HloInstruction* op : unique_operands()) op->RemoveUser(this);
  operands_.clear();
}

absl::Status HloInstruction::AddControlDependencyTo(HloInstruction* successor) {
  if (successor == this) {
    return absl::InvalidArgumentError(
        StrCat("cannot add a control dependency from ", name_, " to itself"));
  }
  if (successor->parent_ != parent_) {
    return absl::InvalidArgumentError(StrCat("control dependency from ", name_, " to ",
                                                   successor->name_,
                                                   " crosses computations"));
  }
  if (std::find(control_successors_.begin(), control_successors_.end(), successor) ==
      control_successors_.end()) {
    control_successors_.push_back(successor);
    successor->control_predecessors_.push_back(this);
  }
  return absl::OkStatus();
}

absl::Status HloInstruction::RemoveControlDependencyTo(HloInstruction* successor) {
  auto it = std::find(control_successors_.begin(), control_successors_.end(), successor);
  if (it == control_successors_.end()) {
    return absl::NotFoundError(StrCat("no control dependency from ", name_, " to ",
                                            successor->name_));
  }
  control_successors_.erase(it);
  auto& preds = successor->control_predecessors_;
  preds.erase(std::find(preds.begin(), preds.end(), this));
  return absl::OkStatus();
}

absl::Status HloInstruction::DropAllControlDeps() {
  for (HloInstruction* s : control_successors_) {
    auto& preds = s->control_predecessors_;
    preds.erase(std::find(preds.begin(), preds.end(), this));
  }
  for (HloInstruction* p : control_predecessors_) {
    auto& succs = p->control_successors_;
    succs.erase(std::find(succs.begin(), succs.end(), this));
  }
  control_successors_.clear();
  control_predecessors_.clear();
  return absl::OkStatus();
}

absl::Status HloInstruction::CopyAllControlDepsFrom(const HloInstruction* inst) {
  for (HloInstruction* s : inst->control_successors_) {
    if (s == this) continue;
    absl::Status st = AddControlDependencyTo(s);
    if (!st.ok()) return st;
  }
  for (HloInstruction* p : inst->control_predecessors_) {
    if (p == this) continue;
    absl::Status st = p->AddControlDependencyTo(this);
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

HloModule* HloInstruction::GetModule() const { return parent_ ? parent_->parent() : nullptr; }

bool HloInstruction::IsRoot() const { return parent_ != nullptr && parent_->root_instruction() == this; }

void HloInstruction::RegisterAsCaller() {
  for (HloComputation* c : called_computations_) {
    if (c) c->AddCaller(this);
  }
}

void HloInstruction::UnregisterAsCaller() {
  for (HloComputation* c : called_computations_) {
    if (c) c->RemoveCaller(this);
  }
}

void HloInstruction::set_called_computations(std::vector<HloComputation*> computations) {
  if (parent_) UnregisterAsCaller();
  called_computations_ = std::move(computations);
  if (parent_) RegisterAsCaller();
}

HloComputation* HloInstruction::to_apply() const {
  return called_computations_.size() == 1 ? called_computations_[0] : nullptr;
}

void HloInstruction::set_to_apply(HloComputation* computation) { set_called_computations({computation}); }

HloComputation* HloInstruction::fused_instructions_computation() const {
  return opcode_ == HloOpcode::kFusion && !called_computations_.empty() ? called_computations_[0]
                                                                        : nullptr;
}

HloInstruction* HloInstruction::fused_expression_root() const {
  HloComputation* c = fused_instructions_computation();
  return c ? c->root_instruction() : nullptr;
}

HloInstruction* HloInstruction::fused_parameter(int64_t i) const {
  HloComputation* c = fused_instructions_computation();
  return c ? c->parameter_instruction(i) : nullptr;
}

HloComputation* HloInstruction::while_condition() const {
  return called_computations_.size() == 2 ? called_computations_[1] : nullptr;
}

HloComputation* HloInstruction::while_body() const {
  return called_computations_.size() == 2 ? called_computations_[0] : nullptr;
}

void HloInstruction::set_while_condition(HloComputation* c) {
  std::vector<HloComputation*> cs = called_computations_;
  cs.resize(2, nullptr);
  cs[1] = c;
  set_called_computations(std::move(cs));
}

void HloInstruction::set_while_body(HloComputation* c) {
  std::vector<HloComputation*> cs = called_computations_;
  cs.resize(2, nullptr);
  cs[0] = c;
  set_called_computations(std::move(cs));
}

HloComputation* HloInstruction::async_wrapped_computation() const {
  return called_computations_.empty() ? nullptr : called_computations_[0];
}

HloInstruction* HloInstruction::async_wrapped_instruction() const {
  HloComputation* c = async_wrapped_computation();
  return c ? c->root_instruction() : nullptr;
}

void HloInstruction::set_slice(std::vector<int64_t> starts, std::vector<int64_t> limits,
                               std::vector<int64_t> strides) {
  slice_starts_ = std::move(starts);
  slice_limits_ = std::move(limits);
  slice_strides_ = std::move(strides);
}

void HloInstruction::set_convolution_dimension_numbers(const ConvolutionDimensionNumbers& dnums) {
  conv_dnums_ = dnums;
  dim_labels_ = ConvolutionDimLabelsToString(dnums);
}

void HloInstruction::set_convolution_dimension_numbers(const ConvolutionDimensionNumbers& dnums,
                                                       std::string dim_labels_text) {
  conv_dnums_ = dnums;
  dim_labels_ = std::move(dim_labels_text);
}

void HloInstruction::set_literal(Literal literal) {
  literal_ = std::make_unique<Literal>(std::move(literal));
}

std::optional<std::string_view> HloInstruction::GetRawAttribute(std::string_view name) const {
  for (const HloRawAttribute& a : raw_attributes_) {
    if (a.name == name) return std::string_view(a.value);
  }
  return std::nullopt;
}

void HloInstruction::SetRawAttribute(std::string_view name, std::string value) {
  for (HloRawAttribute& a : raw_attributes_) {
    if (a.name == name) {
      a.value = std::move(value);
      return;
    }
  }
  raw_attributes_.push_back(HloRawAttribute{std::string(name), std::move(value)});
}

bool HloInstruction::RemoveRawAttribute(std::string_view name) {
  for (auto it = raw_attributes_.begin(); it != raw_attributes_.end(); ++it) {
    if (it->name == name) {
      raw_attributes_.erase(it);
      return true;
    }
  }
  return false;
}

std::string_view HloInstruction::metadata_text() const {
  return GetRawAttribute("metadata").value_or(std::string_view());
}

std::string_view HloInstruction::sharding_text() const {
  return GetRawAttribute("sharding").value_or(std::string_view());
}

std::string_view HloInstruction::backend_config_text() const {
  return GetRawAttribute("backend_config").value_or(std::string_view());
}

std::string HloInstruction::metadata_op_name() const {
  std::string_view md = metadata_text();
  size_t pos = md.find("op_name=\"");
  if (pos == std::string_view::npos) return "";
  pos += 9;
  size_t end = pos;
  while (end < md.size() && md[end] != '"') {
    if (md[end] == '\\') ++end;
    ++end;
  }
  std::string raw(md.substr(pos, end - pos));
  std::string out;
  if (!absl::CUnescape(raw, &out)) return raw;
  return out;
}

bool HloInstruction::custom_call_has_side_effect() const {
  auto v = GetRawAttribute("custom_call_has_side_effect");
  return v.has_value() && *v == "true";
}

bool HloInstruction::IsElementwise() const {
  if (opcode_ == HloOpcode::kBitcastConvert) {
    return operand_count() == 1 && shape_.IsArray() && operands_[0]->shape().IsArray() &&
           BitWidth(shape_.element_type()) == BitWidth(operands_[0]->shape().element_type());
  }
  if (IsElementwiseOpcode(opcode_)) return true;
  if (opcode_ == HloOpcode::kFusion && fusion_kind_ == FusionKind::kLoop) {
    HloComputation* fused = fused_instructions_computation();
    if (fused == nullptr) return false;
    for (const HloInstruction* i : fused->instructions()) {
      if (i->opcode() == HloOpcode::kParameter) continue;
      if (!i->IsElementwise()) return false;
    }
    return true;
  }
  return false;
}

bool HloInstruction::IsElementwiseOnOperand(int64_t operand_index) const {
  if (opcode_ != HloOpcode::kFusion) return IsElementwise();
  HloComputation* fused = fused_instructions_computation();
  if (fused == nullptr || operand_index >= fused->num_parameters()) return false;
  std::deque<const HloInstruction*> worklist = {fused->parameter_instruction(operand_index)};
  absl::flat_hash_set<const HloInstruction*> visited;
  while (!worklist.empty()) {
    const HloInstruction* i = worklist.front();
    worklist.pop_front();
    for (const HloInstruction* user : i->users()) {
      if (!user->IsElementwise()) return false;
      if (visited.insert(user).second) worklist.push_back(user);
    }
  }
  return true;
}

bool HloInstruction::HasSideEffectNoRecurse() const {
  switch (opcode_) {
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kRng:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
      return true;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll: {
      auto v = GetRawAttribute("constrain_layout");
      return v.has_value() && *v == "true";
    }
    case HloOpcode::kCustomCall:
      return custom_call_has_side_effect();
    default:
      return false;
  }
}

bool HloInstruction::HasSideEffect() const {
  if (HasSideEffectNoRecurse()) return true;
  for (const HloComputation* c : called_computations_) {
    if (c == nullptr) continue;
    for (const HloInstruction* i : c->instructions()) {
      if (i->HasSideEffect()) return true;
    }
  }
  return false;
}

absl::Status HloInstruction::ReplaceOperandWith(int64_t operand_num, HloInstruction* new_operand) {
  if (operand_num < 0 || operand_num >= operand_count()) {
    return absl::OutOfRangeError(StrCat("operand ", operand_num, " of ", name_,
                                              " does not exist"));
  }
  if (!ShapeUtil::Compatible(operands_[operand_num]->shape(), new_operand->shape())) {
    return absl::InvalidArgumentError(StrCat(
        "cannot replace operand ", operand_num, " of ", name_, ": shape ",
        operands_[operand_num]->shape().ToString(), " is not compatible with ",
        new_operand->shape().ToString()));
  }
  return ReplaceOperandWithDifferentShape(operand_num, new_operand);
}

absl::Status HloInstruction::ReplaceOperandWithDifferentShape(int64_t operand_num,
                                                              HloInstruction* new_operand) {
  if (operand_num < 0 || operand_num >= operand_count()) {
    return absl::OutOfRangeError(StrCat("operand ", operand_num, " of ", name_,
                                              " does not exist"));
  }
  HloInstruction* old = operands_[operand_num];
  if (old == new_operand) return absl::OkStatus();
  operands_[operand_num] = new_operand;
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) old->RemoveUser(this);
  new_operand->AddUser(this);
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceUseWith(HloInstruction* user, HloInstruction* new_producer) {
  if (!HasUser(user)) {
    return absl::InvalidArgumentError(
        StrCat(user->name(), " is not a user of ", name_));
  }
  if (new_producer == this) return absl::OkStatus();
  for (HloInstruction*& op : user->operands_) {
    if (op == this) op = new_producer;
  }
  RemoveUser(user);
  new_producer->AddUser(user);
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceAllUsesWith(HloInstruction* new_producer) {
  if (!ShapeUtil::Compatible(shape_, new_producer->shape())) {
    return absl::InvalidArgumentError(StrCat(
        "cannot replace uses of ", name_, ": shape ", shape_.ToString(),
        " is not compatible with ", new_producer->name(), "'s ", new_producer->shape().ToString()));
  }
  return ReplaceAllUsesWithDifferentShape(new_producer);
}

absl::Status HloInstruction::ReplaceAllUsesWithDifferentShape(HloInstruction* new_producer) {
  if (new_producer == this) return absl::OkStatus();
  std::vector<HloInstruction*> users = users_;
  for (HloInstruction* user : users) {
    // Replacing x by copy(x): the copy keeps using x, else we would create a
    // cycle.
    if (user == new_producer) continue;
    absl::Status st = ReplaceUseWith(user, new_producer);
    if (!st.ok()) return st;
  }
  if (parent_ && parent_->root_instruction() == this) parent_->set_root_instruction(new_producer);
  return absl::OkStatus();
}

void HloInstruction::CopyAttributesFrom(const HloInstruction& o) {
  called_computations_ = o.called_computations_;
  true_false_form_ = o.true_false_form_;
  parameter_number_ = o.parameter_number_;
  tuple_index_ = o.tuple_index_;
  dimensions_ = o.dimensions_;
  has_dimensions_ = o.has_dimensions_;
  slice_starts_ = o.slice_starts_;
  slice_limits_ = o.slice_limits_;
  slice_strides_ = o.slice_strides_;
  dynamic_slice_sizes_ = o.dynamic_slice_sizes_;
  padding_config_ = o.padding_config_;
  window_ = o.window_;
  conv_dnums_ = o.conv_dnums_;
  dim_labels_ = o.dim_labels_;
  feature_group_count_ = o.feature_group_count_;
  batch_group_count_ = o.batch_group_count_;
  dot_dnums_ = o.dot_dnums_;
  gather_dnums_ = o.gather_dnums_;
  gather_slice_sizes_ = o.gather_slice_sizes_;
  scatter_dnums_ = o.scatter_dnums_;
  indices_are_sorted_ = o.indices_are_sorted_;
  unique_indices_ = o.unique_indices_;
  fusion_kind_ = o.fusion_kind_;
  custom_call_target_ = o.custom_call_target_;
  output_to_operand_aliasing_ = o.output_to_operand_aliasing_;
  frontend_attributes_ = o.frontend_attributes_;
  channel_id_ = o.channel_id_;
  comparison_direction_ = o.comparison_direction_;
  comparison_type_ = o.comparison_type_;
  iota_dimension_ = o.iota_dimension_;
  literal_ = o.literal_ ? std::make_unique<Literal>(*o.literal_) : nullptr;
  raw_attributes_ = o.raw_attributes_;
}

std::unique_ptr<HloInstruction> HloInstruction::CloneWithNewOperands(
    const Shape& shape, absl::Span<HloInstruction* const> new_operands) const {
  auto clone = Create(opcode_, shape, new_operands);
  clone->CopyAttributesFrom(*this);
  clone->name_ = name_;
  return clone;
}

std::unique_ptr<HloInstruction> HloInstruction::Clone(std::string_view suffix) const {
  auto clone = CloneWithNewOperands(shape_, operands_);
  if (!suffix.empty()) clone->name_ = StrCat(name_, ".", std::string(suffix));
  return clone;
}

std::string HloInstruction::ToString() const { return PrintHloInstruction(*this); }

}  // namespace hmo
