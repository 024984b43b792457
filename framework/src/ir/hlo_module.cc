#include "hmo/ir/hlo_module.h"
#include "str_cat.h"

#include <atomic>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_printer.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;
namespace {
std::atomic<int64_t> next_module_id{0};

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }
}  // namespace

HloModule::HloModule(std::string name) : name_(std::move(name)), unique_id_(next_module_id++) {}

HloModule::~HloModule() = default;

int64_t HloModule::instruction_count() const {
  int64_t n = 0;
  for (const auto& c : computations_) n += c->instruction_count();
  return n;
}

HloComputation* HloModule::GetComputationWithName(std::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

HloComputation* HloModule::AddComputation(std::unique_ptr<HloComputation> computation,
                                          bool is_entry, bool uniquify_names) {
  HloComputation* c = computation.get();
  if (!RegisterName(c->name()) && uniquify_names) c->name_ = GetUniqueName(c->name());
  for (HloInstruction* instr : c->instructions()) {
    if (!RegisterName(instr->name()) && uniquify_names) instr->name_ = GetUniqueName(instr->name());
    instr->SetUniqueId(NewUniqueInstructionId());
  }
  c->SetUniqueId(next_computation_id_++);
  c->set_parent(this);
  computations_.push_back(std::move(computation));
  if (is_entry) entry_ = c;
  return c;
}

absl::Status HloModule::RemoveComputation(HloComputation* computation) {
  if (computation == entry_) {
    return absl::FailedPreconditionError(
        StrCat("cannot remove the entry computation ", computation->name()));
  }
  if (!computation->caller_instructions().empty()) {
    return absl::FailedPreconditionError(
        StrCat("cannot remove computation ", computation->name(), ": it is called by ",
                     computation->caller_instructions()[0]->name()));
  }
  for (auto it = computations_.begin(); it != computations_.end(); ++it) {
    if (it->get() != computation) continue;
    for (HloInstruction* instr : computation->instructions()) instr->UnregisterAsCaller();
    if (schedule_) schedule_->remove_computation(computation);
    computations_.erase(it);
    return absl::OkStatus();
  }
  return absl::NotFoundError(
      StrCat("computation ", computation->name(), " is not in module ", name_));
}

absl::Status HloModule::RemoveDeadInstruction(HloInstruction* instruction) {
  HloComputation* parent = instruction->parent();
  HloComputation* called = instruction->opcode() == HloOpcode::kFusion
                               ? instruction->fused_instructions_computation()
                               : nullptr;
  HMO_RETURN_IF_ERROR(parent->RemoveInstruction(instruction));
  if (schedule_ && schedule_->is_computation_scheduled(parent)) {
    schedule_->GetOrCreateSequence(parent).remove_instruction(instruction);
  }
  if (called != nullptr && called->caller_instructions().empty()) {
    HMO_RETURN_IF_ERROR(RemoveComputation(called));
  }
  return absl::OkStatus();
}

int64_t HloModule::RemoveUnusedComputations() {
  if (entry_ == nullptr) return 0;
  absl::flat_hash_set<const HloComputation*> reachable = {entry_};
  std::vector<const HloComputation*> worklist = {entry_};
  while (!worklist.empty()) {
    const HloComputation* c = worklist.back();
    worklist.pop_back();
    for (const HloInstruction* i : c->instructions()) {
      for (HloComputation* callee : i->called_computations()) {
        if (callee != nullptr && reachable.insert(callee).second) worklist.push_back(callee);
      }
    }
  }
  // Unregister every call made from unreachable code first, so no callee
  // keeps a caller pointer into a computation that is about to be freed.
  for (const auto& c : computations_) {
    if (reachable.contains(c.get())) continue;
    for (HloInstruction* instr : c->instructions()) instr->UnregisterAsCaller();
    if (schedule_) schedule_->remove_computation(c.get());
  }
  int64_t removed = 0;
  std::vector<std::unique_ptr<HloComputation>> kept;
  for (auto& c : computations_) {
    if (reachable.contains(c.get())) {
      kept.push_back(std::move(c));
    } else {
      ++removed;
    }
  }
  computations_ = std::move(kept);
  return removed;
}

std::vector<HloComputation*> HloModule::MakeComputationPostOrder() const {
  std::vector<HloComputation*> out;
  out.reserve(computations_.size());
  absl::flat_hash_set<const HloComputation*> visited;
  std::function<void(HloComputation*)> visit = [&](HloComputation* c) {
    if (!visited.insert(c).second) return;
    for (const HloInstruction* i : c->instructions()) {
      for (HloComputation* callee : i->called_computations()) {
        if (callee != nullptr) visit(callee);
      }
    }
    out.push_back(c);
  };
  for (const auto& c : computations_) visit(c.get());
  return out;
}

std::vector<HloComputation*> HloModule::MakeNonfusionComputations() const {
  std::vector<HloComputation*> out;
  for (HloComputation* c : MakeComputationPostOrder()) {
    if (!c->IsFusionComputation()) out.push_back(c);
  }
  return out;
}

ComputationLayout HloModule::entry_computation_layout() const {
  if (entry_layout_) return *entry_layout_;
  ComputationLayout layout;
  if (entry_ == nullptr) return layout;
  for (const HloInstruction* p : entry_->parameter_instructions()) {
    layout.mutable_parameter_shapes()->push_back(p ? p->shape() : Shape());
  }
  if (entry_->root_instruction()) *layout.mutable_result_shape() = entry_->root_instruction()->shape();
  return layout;
}

absl::Status HloModule::set_schedule(HloSchedule schedule) {
  if (schedule.module() != this) {
    return absl::InvalidArgumentError("the schedule belongs to a different module");
  }
  absl::Status st = schedule.Verify();
  if (!st.ok()) return st;
  schedule_ = std::make_unique<HloSchedule>(std::move(schedule));
  SyncInstructionOrderWithSchedule();
  return absl::OkStatus();
}

void HloModule::SyncInstructionOrderWithSchedule() {
  if (schedule_ == nullptr) return;
  for (const auto& computation : computations_) {
    if (computation != nullptr && schedule_->is_computation_scheduled(computation.get())) {
      computation->ReorderInstructions(schedule_->sequence(computation.get()).instructions());
    }
  }
}

std::optional<std::string_view> HloModule::GetRawAttribute(std::string_view name) const {
  for (const HloRawAttribute& a : raw_attributes_) {
    if (a.name == name) return std::string_view(a.value);
  }
  return std::nullopt;
}

bool HloModule::IsNameUsed(std::string_view name) const { return names_.contains(AbslView(name)); }

bool HloModule::RegisterName(std::string_view name) {
  return names_.insert(std::string(name)).second;
}

std::string HloModule::GetUniqueName(std::string_view prefix) {
  if (RegisterName(prefix)) return std::string(prefix);
  // Strip a numeric ".N" suffix so "add.3" yields "add.4", not "add.3.1".
  std::string_view base = prefix;
  size_t dot = prefix.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < prefix.size()) {
    bool digits = true;
    for (size_t i = dot + 1; i < prefix.size(); ++i) digits &= prefix[i] >= '0' && prefix[i] <= '9';
    if (digits) base = prefix.substr(0, dot);
  }
  int64_t& counter = name_counters_[std::string(base)];
  while (true) {
    ++counter;
    std::string candidate = StrCat(AbslView(base), ".", counter);
    if (RegisterName(candidate)) return candidate;
  }
}

std::unique_ptr<HloModule> HloModule::Clone(std::string_view suffix) const {
  auto module = std::make_unique<HloModule>(
      suffix.empty() ? name_ : StrCat(name_, "-", AbslView(suffix)));
  module->entry_layout_ = entry_layout_;
  module->alias_config_ = alias_config_;
  module->buffer_donor_config_ = buffer_donor_config_;
  module->alias_passthrough_params_ = alias_passthrough_params_;
  module->replica_count_ = replica_count_;
  module->num_partitions_ = num_partitions_;
  module->frontend_attributes_ = frontend_attributes_;
  module->raw_attributes_ = raw_attributes_;
  module->header_locations_ = header_locations_;
  module->stack_frame_index_ = stack_frame_index_;

  absl::flat_hash_map<const HloComputation*, HloComputation*> comp_map;
  std::vector<std::unique_ptr<HloComputation>> new_comps;
  for (const auto& c : computations_) {
    auto nc = std::make_unique<HloComputation>(c->name());
    nc->set_execution_thread(c->execution_thread());
    comp_map[c.get()] = nc.get();
    new_comps.push_back(std::move(nc));
  }
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> instr_map;
  for (size_t k = 0; k < computations_.size(); ++k) {
    const HloComputation* c = computations_[k].get();
    HloComputation* nc = new_comps[k].get();
    // Clone in dependency order (the stored order need not be topological),
    // then add in the stored order so the copy keeps it.
    absl::flat_hash_map<const HloInstruction*, std::unique_ptr<HloInstruction>> clones;
    for (HloInstruction* i : c->MakeInstructionPostOrder()) {
      std::vector<HloInstruction*> ops;
      ops.reserve(i->operand_count());
      for (HloInstruction* op : i->operands()) ops.push_back(instr_map.at(op));
      auto clone = i->CloneWithNewOperands(i->shape(), ops);
      for (HloComputation*& callee : clone->called_computations_) {
        auto it = comp_map.find(callee);
        if (it != comp_map.end()) callee = it->second;
      }
      instr_map[i] = clone.get();
      clones[i] = std::move(clone);
    }
    for (const HloInstruction* i : c->instructions()) {
      auto it = clones.find(i);
      if (it == clones.end()) continue;  // unreachable from any userless root: cannot happen
      nc->AddInstruction(std::move(it->second));
    }
    for (const HloInstruction* i : c->instructions()) {
      for (const HloInstruction* s : i->control_successors()) {
        (void)instr_map.at(i)->AddControlDependencyTo(instr_map.at(s));
      }
    }
    if (c->root_instruction()) nc->set_root_instruction(instr_map.at(c->root_instruction()));
  }
  for (size_t k = 0; k < computations_.size(); ++k) {
    module->AddComputation(std::move(new_comps[k]), computations_[k].get() == entry_,
                           /*uniquify_names=*/false);
  }
  if (schedule_) {
    HloSchedule schedule(module.get());
    for (const auto& c : computations_) {
      if (!schedule_->is_computation_scheduled(c.get())) continue;
      std::vector<HloInstruction*> seq;
      for (HloInstruction* i : schedule_->sequence(c.get()).instructions()) {
        auto it = instr_map.find(i);
        if (it != instr_map.end()) seq.push_back(it->second);
      }
      schedule.set_sequence(comp_map.at(c.get()), seq);
    }
    module->schedule_ = std::make_unique<HloSchedule>(std::move(schedule));
  }
  return module;
}

void HloModule::ReplaceContentsWith(std::unique_ptr<HloModule> other) {
  computations_ = std::move(other->computations_);
  for (const auto& computation : computations_) computation->set_parent(this);
  entry_ = other->entry_;
  entry_layout_ = std::move(other->entry_layout_);
  alias_config_ = std::move(other->alias_config_);
  buffer_donor_config_ = std::move(other->buffer_donor_config_);
  alias_passthrough_params_ = other->alias_passthrough_params_;
  replica_count_ = other->replica_count_;
  num_partitions_ = other->num_partitions_;
  frontend_attributes_ = std::move(other->frontend_attributes_);
  raw_attributes_ = std::move(other->raw_attributes_);
  header_locations_ = other->header_locations_;
  stack_frame_index_ = std::move(other->stack_frame_index_);
  names_ = std::move(other->names_);
  name_counters_ = std::move(other->name_counters_);
  next_instruction_id_ = other->next_instruction_id_;
  next_computation_id_ = other->next_computation_id_;
  schedule_.reset();
  if (other->schedule_ != nullptr) {
    // The sequences are keyed by the computations, which moved here.
    auto schedule = std::make_unique<HloSchedule>(this);
    for (const auto& computation : computations_) {
      if (!other->schedule_->is_computation_scheduled(computation.get())) continue;
      schedule->set_sequence(computation.get(),
                             other->schedule_->sequence(computation.get()).instructions());
    }
    schedule_ = std::move(schedule);
  }
  other->entry_ = nullptr;
  other->schedule_.reset();
}

std::string HloModule::ToString() const { return PrintHloModule(*this); }

}  // namespace hmo
