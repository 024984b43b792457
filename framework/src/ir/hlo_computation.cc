#include "hmo/ir/hlo_computation.h"
#include "str_cat.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_printer.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;

HloComputation::HloComputation(std::string name) : name_(std::move(name)) {}

HloComputation::~HloComputation() = default;

void HloComputation::SetAndSanitizeName(std::string_view name) {
  name_.assign(name.data(), name.size());
  for (char& c : name_) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) c = '_';
  }
  if (parent_) parent_->RegisterName(name_);
}

std::vector<HloInstruction*> HloComputation::MakeInstructionVector() const {
  std::vector<HloInstruction*> out;
  out.reserve(instruction_count_);
  for (const auto& slot : instructions_) {
    if (slot) out.push_back(slot.get());
  }
  return out;
}

HloInstruction* HloComputation::GetInstructionWithName(std::string_view name) const {
  for (const auto& slot : instructions_) {
    if (slot && slot->name() == name) return slot.get();
  }
  return nullptr;
}

HloInstruction* HloComputation::AddInstruction(std::unique_ptr<HloInstruction> instruction,
                                               std::string_view new_name) {
  HloInstruction* instr = instruction.get();
  if (!new_name.empty()) instr->SetAndSanitizeName(new_name);
  if (instr->name().empty()) instr->SetAndSanitizeName(HloOpcodeString(instr->opcode()));
  if (parent_ != nullptr) {
    if (!parent_->RegisterName(instr->name())) {
      instr->name_ = parent_->GetUniqueName(instr->name());
    }
    instr->SetUniqueId(parent_->NewUniqueInstructionId());
  }
  instr->set_parent(this);
  instr->set_index_in_parent(static_cast<int64_t>(instructions_.size()));
  instructions_.push_back(std::move(instruction));
  ++instruction_count_;
  if (instr->opcode() == HloOpcode::kParameter) {
    int64_t n = instr->parameter_number();
    if (n >= static_cast<int64_t>(parameters_.size())) parameters_.resize(n + 1, nullptr);
    parameters_[n] = instr;
  }
  instr->RegisterAsCaller();
  return instr;
}

HloInstruction* HloComputation::AddParameter(std::unique_ptr<HloInstruction> parameter) {
  return AddInstruction(std::move(parameter));
}

absl::Status HloComputation::RemoveInstructionImpl(HloInstruction* instruction) {
  if (instruction->parent() != this) {
    return absl::InvalidArgumentError(StrCat("instruction ", instruction->name(),
                                                   " is not in computation ", name_));
  }
  if (!instruction->users().empty()) {
    return absl::FailedPreconditionError(StrCat("instruction ", instruction->name(),
                                                      " still has ", instruction->user_count(),
                                                      " user(s) and cannot be removed"));
  }
  if (instruction == root_) {
    return absl::FailedPreconditionError(
        StrCat("instruction ", instruction->name(), " is the root and cannot be removed"));
  }
  if (!instruction->control_predecessors().empty() || !instruction->control_successors().empty()) {
    return absl::FailedPreconditionError(StrCat(
        "instruction ", instruction->name(), " has control dependencies and cannot be removed"));
  }
  if (instruction->opcode() == HloOpcode::kParameter) {
    return absl::FailedPreconditionError(
        StrCat("instruction ", instruction->name(), " is a parameter and cannot be removed"));
  }
  instruction->UnregisterAsCaller();
  instruction->DetachFromOperands();
  int64_t index = instruction->index_in_parent();
  to_be_deleted_.push_back(std::move(instructions_[index]));
  --instruction_count_;
  instruction->set_parent(nullptr);
  instruction->set_index_in_parent(-1);
  return absl::OkStatus();
}

absl::Status HloComputation::RemoveInstruction(HloInstruction* instruction) {
  return RemoveInstructionImpl(instruction);
}

absl::Status HloComputation::RemoveInstructionAndUnusedOperands(HloInstruction* instruction) {
  std::vector<HloInstruction*> worklist = {instruction};
  bool first = true;
  while (!worklist.empty()) {
    HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (current->parent() != this) continue;  // already removed via another path
    if (!first) {
      if (!current->IsDead() || current->opcode() == HloOpcode::kParameter ||
          !current->control_predecessors().empty() || !current->control_successors().empty() ||
          current->HasSideEffect()) {
        continue;
      }
    }
    std::vector<HloInstruction*> operands = current->unique_operands();
    absl::Status st = RemoveInstructionImpl(current);
    if (!st.ok()) {
      if (first) return st;
      continue;
    }
    first = false;
    for (HloInstruction* op : operands) worklist.push_back(op);
  }
  return absl::OkStatus();
}

absl::Status HloComputation::ReplaceInstruction(HloInstruction* old_instruction,
                                                HloInstruction* new_instruction) {
  if (!ShapeUtil::Compatible(old_instruction->shape(), new_instruction->shape())) {
    return absl::InvalidArgumentError(StrCat(
        "cannot replace ", old_instruction->name(), " (", old_instruction->shape().ToString(),
        ") with ", new_instruction->name(), " (", new_instruction->shape().ToString(),
        "): incompatible shapes"));
  }
  return ReplaceInstructionWithDifferentShape(old_instruction, new_instruction);
}

absl::Status HloComputation::ReplaceInstructionWithDifferentShape(HloInstruction* old_instruction,
                                                                  HloInstruction* new_instruction) {
  if (old_instruction == new_instruction) return absl::OkStatus();
  if (new_instruction->parent() != this) {
    return absl::InvalidArgumentError(StrCat("replacement ", new_instruction->name(),
                                                   " is not in computation ", name_));
  }
  absl::Status st = new_instruction->CopyAllControlDepsFrom(old_instruction);
  if (!st.ok()) return st;
  st = old_instruction->DropAllControlDeps();
  if (!st.ok()) return st;
  // Keep provenance when the replacement carries none.
  if (!new_instruction->GetRawAttribute("metadata") && old_instruction->GetRawAttribute("metadata")) {
    new_instruction->SetRawAttribute("metadata", std::string(old_instruction->metadata_text()));
  }
  st = old_instruction->ReplaceAllUsesWithDifferentShape(new_instruction);
  if (!st.ok()) return st;
  if (old_instruction->IsDead()) return RemoveInstructionAndUnusedOperands(old_instruction);
  return absl::OkStatus();
}

absl::Status HloComputation::ReplaceWithNewInstruction(
    HloInstruction* old_instruction, std::unique_ptr<HloInstruction> new_instruction) {
  HloInstruction* added = AddInstruction(std::move(new_instruction));
  return ReplaceInstructionWithDifferentShape(old_instruction, added);
}

absl::StatusOr<HloInstruction*> HloComputation::ReplaceWithNewInstructionInPlace(
    HloInstruction* old_instruction, std::unique_ptr<HloInstruction> new_instruction) {
  if (old_instruction->parent() != this) {
    return absl::InvalidArgumentError(StrCat("instruction ", old_instruction->name(),
                                             " is not in computation ", name_));
  }
  const bool reuse_name = new_instruction->name().empty();
  const std::string old_name = old_instruction->name();
  HloInstruction* added = AddInstruction(std::move(new_instruction));
  if (reuse_name) added->name_ = old_name;  // the name is already registered
  // Move the new instruction into the old one's slot.
  const int64_t old_slot = old_instruction->index_in_parent();
  const int64_t new_slot = added->index_in_parent();
  std::swap(instructions_[old_slot], instructions_[new_slot]);
  added->set_index_in_parent(old_slot);
  old_instruction->set_index_in_parent(new_slot);
  absl::Status st = added->CopyAllControlDepsFrom(old_instruction);
  if (!st.ok()) return st;
  st = old_instruction->DropAllControlDeps();
  if (!st.ok()) return st;
  st = old_instruction->ReplaceAllUsesWithDifferentShape(added);
  if (!st.ok()) return st;
  st = RemoveInstructionImpl(old_instruction);
  if (!st.ok()) return st;
  // The old slot is now the tail one; drop it so order stays compact.
  if (instructions_.back() == nullptr) instructions_.pop_back();
  return added;
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  enum : uint8_t { kNew = 0, kVisiting = 1, kVisited = 2 };
  std::vector<uint8_t> state(instructions_.size(), kNew);
  std::vector<HloInstruction*> post_order;
  post_order.reserve(instruction_count_);
  std::vector<HloInstruction*> stack;
  auto visit = [&](HloInstruction* root) {
    stack.push_back(root);
    while (!stack.empty()) {
      HloInstruction* current = stack.back();
      uint8_t& s = state[current->index_in_parent()];
      if (s != kNew) {
        stack.pop_back();
        if (s == kVisiting) {
          post_order.push_back(current);
          s = kVisited;
        }
        continue;
      }
      s = kVisiting;
      // Operands pushed in reverse so the first operand is visited first;
      // control predecessors go on top and are visited before operands.
      const auto& ops = current->operands();
      for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
        if (state[(*it)->index_in_parent()] == kNew) stack.push_back(*it);
      }
      for (HloInstruction* p : current->control_predecessors()) {
        if (state[p->index_in_parent()] == kNew) stack.push_back(p);
      }
    }
  };
  for (const auto& slot : instructions_) {
    if (slot && slot->users().empty() && state[slot->index_in_parent()] == kNew) visit(slot.get());
  }
  return post_order;
}

std::vector<HloInstruction*> HloComputation::caller_instructions(HloOpcode opcode) const {
  std::vector<HloInstruction*> out;
  for (HloInstruction* c : callers_) {
    if (c->opcode() == opcode) out.push_back(c);
  }
  return out;
}

HloInstruction* HloComputation::FusionInstruction() const {
  for (HloInstruction* c : callers_) {
    if (c->opcode() == HloOpcode::kFusion) return c;
  }
  return nullptr;
}

bool HloComputation::IsAsyncComputation() const {
  for (HloInstruction* c : callers_) {
    HloOpcode op = c->opcode();
    if (op == HloOpcode::kAsyncStart || op == HloOpcode::kAsyncUpdate || op == HloOpcode::kAsyncDone) {
      return true;
    }
  }
  return false;
}

bool HloComputation::IsEntryComputation() const {
  return parent_ != nullptr && parent_->entry_computation() == this;
}

std::vector<HloComputation*> HloComputation::MakeEmbeddedComputationsList() const {
  std::vector<HloComputation*> out;
  absl::flat_hash_set<const HloComputation*> seen = {this};
  // Depth-first, callees before callers.
  std::function<void(const HloComputation*)> walk = [&](const HloComputation* c) {
    for (const HloInstruction* i : c->instructions()) {
      for (HloComputation* callee : i->called_computations()) {
        if (callee == nullptr || !seen.insert(callee).second) continue;
        walk(callee);
        out.push_back(callee);
      }
    }
  };
  walk(this);
  return out;
}

void HloComputation::AddCaller(HloInstruction* caller) {
  if (std::find(callers_.begin(), callers_.end(), caller) == callers_.end()) callers_.push_back(caller);
}

void HloComputation::RemoveCaller(HloInstruction* caller) {
  auto it = std::find(callers_.begin(), callers_.end(), caller);
  if (it != callers_.end()) callers_.erase(it);
}

void HloComputation::Cleanup() {
  to_be_deleted_.clear();
  std::vector<std::unique_ptr<HloInstruction>> live;
  live.reserve(instruction_count_);
  for (auto& slot : instructions_) {
    if (slot) {
      slot->set_index_in_parent(static_cast<int64_t>(live.size()));
      live.push_back(std::move(slot));
    }
  }
  instructions_ = std::move(live);
}

void HloComputation::ReorderInstructions(absl::Span<HloInstruction* const> order) {
  std::vector<std::unique_ptr<HloInstruction>> reordered;
  reordered.reserve(instruction_count_);
  auto take = [&](HloInstruction* instruction) {
    const int64_t slot = instruction->index_in_parent();
    if (instruction->parent() != this || slot < 0 ||
        slot >= static_cast<int64_t>(instructions_.size()) ||
        instructions_[slot].get() != instruction) {
      return;
    }
    reordered.push_back(std::move(instructions_[slot]));
  };
  for (HloInstruction* instruction : order) take(instruction);
  for (auto& slot : instructions_) {
    if (slot) reordered.push_back(std::move(slot));
  }
  for (int64_t i = 0; i < static_cast<int64_t>(reordered.size()); ++i) {
    reordered[i]->set_index_in_parent(i);
  }
  instructions_ = std::move(reordered);
}

std::string HloComputation::ToString() const { return PrintHloComputation(*this); }

}  // namespace hmo
