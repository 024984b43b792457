#include "hmo/ir/hlo_schedule.h"
#include "str_cat.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;

HloInstructionSequence::HloInstructionSequence(absl::Span<HloInstruction* const> instructions) {
  for (HloInstruction* i : instructions) push_back(i);
}

void HloInstructionSequence::push_back(HloInstruction* instruction) {
  instructions_.push_back(instruction);
  ids_.push_back(instruction->unique_id());
}

void HloInstructionSequence::remove_instruction(HloInstruction* instruction) {
  auto it = std::find(instructions_.begin(), instructions_.end(), instruction);
  if (it == instructions_.end()) return;
  ids_.erase(ids_.begin() + (it - instructions_.begin()));
  instructions_.erase(it);
}

void HloInstructionSequence::replace_instruction(HloInstruction* old_instruction,
                                                 HloInstruction* new_instruction) {
  auto it = std::find(instructions_.begin(), instructions_.end(), old_instruction);
  if (it == instructions_.end()) return;
  ids_[it - instructions_.begin()] = new_instruction->unique_id();
  *it = new_instruction;
}

void HloInstructionSequence::insert_instruction(HloInstruction* instruction, int64_t index) {
  instructions_.insert(instructions_.begin() + index, instruction);
  ids_.insert(ids_.begin() + index, instruction->unique_id());
}

void HloInstructionSequence::clear() {
  instructions_.clear();
  ids_.clear();
}

const HloInstructionSequence& HloSchedule::sequence(const HloComputation* computation) const {
  return sequences_.at(computation->unique_id());
}

HloInstructionSequence& HloSchedule::GetOrCreateSequence(const HloComputation* computation) {
  return sequences_[computation->unique_id()];
}

void HloSchedule::set_sequence(const HloComputation* computation,
                               absl::Span<HloInstruction* const> sequence) {
  sequences_[computation->unique_id()] = HloInstructionSequence(sequence);
}

void HloSchedule::set_sequence(const HloComputation* computation, HloInstructionSequence sequence) {
  sequences_[computation->unique_id()] = std::move(sequence);
}

bool HloSchedule::is_computation_scheduled(const HloComputation* computation) const {
  return sequences_.contains(computation->unique_id());
}

void HloSchedule::remove_computation(const HloComputation* computation) {
  sequences_.erase(computation->unique_id());
}

absl::Status HloSchedule::Update() {
  std::vector<HloComputation*> nonfusion = module_->MakeNonfusionComputations();
  absl::flat_hash_set<int64_t> live_computations;
  for (HloComputation* c : nonfusion) live_computations.insert(c->unique_id());
  for (auto it = sequences_.begin(); it != sequences_.end();) {
    if (!live_computations.contains(it->first)) {
      it = sequences_.erase(it);
    } else {
      ++it;
    }
  }
  for (HloComputation* c : nonfusion) {
    auto found = sequences_.find(c->unique_id());
    if (found == sequences_.end()) {
      set_sequence(c, c->MakeInstructionPostOrder());
      continue;
    }
    absl::flat_hash_map<int64_t, HloInstruction*> live;
    for (HloInstruction* i : c->instructions()) live[i->unique_id()] = i;
    HloInstructionSequence& old_seq = found->second;
    std::vector<HloInstruction*> kept;
    absl::flat_hash_set<const HloInstruction*> emitted;
    for (size_t k = 0; k < old_seq.ids().size(); ++k) {
      auto it = live.find(old_seq.ids()[k]);
      if (it != live.end() && emitted.insert(it->second).second) kept.push_back(it->second);
    }
    std::vector<HloInstruction*> pending;
    for (HloInstruction* i : c->MakeInstructionPostOrder()) {
      if (!emitted.contains(i)) pending.push_back(i);
    }
    HloInstructionSequence result;
    absl::flat_hash_set<const HloInstruction*> done;
    auto ready = [&](const HloInstruction* i) {
      for (const HloInstruction* op : i->operands()) {
        if (!done.contains(op)) return false;
      }
      for (const HloInstruction* p : i->control_predecessors()) {
        if (!done.contains(p)) return false;
      }
      return true;
    };
    auto flush_ready = [&]() {
      bool progress = true;
      while (progress) {
        progress = false;
        for (auto it = pending.begin(); it != pending.end(); ++it) {
          if (ready(*it)) {
            result.push_back(*it);
            done.insert(*it);
            pending.erase(it);
            progress = true;
            break;
          }
        }
      }
    };
    flush_ready();
    for (HloInstruction* i : kept) {
      result.push_back(i);
      done.insert(i);
      flush_ready();
    }
    for (HloInstruction* i : pending) result.push_back(i);  // unreachable deps; Verify reports
    old_seq = std::move(result);
  }
  return Verify();
}

absl::Status HloSchedule::Verify() const {
  std::vector<HloComputation*> nonfusion = module_->MakeNonfusionComputations();
  absl::flat_hash_set<int64_t> ids;
  for (HloComputation* c : nonfusion) ids.insert(c->unique_id());
  for (const auto& [id, seq] : sequences_) {
    if (!ids.contains(id)) {
      return absl::FailedPreconditionError(
          StrCat("schedule has a sequence for computation id ", id,
                       " which is not a non-fusion computation of module ", module_->name()));
    }
  }
  for (HloComputation* c : nonfusion) {
    auto found = sequences_.find(c->unique_id());
    if (found == sequences_.end()) {
      return absl::FailedPreconditionError(
          StrCat("computation ", c->name(), " has no schedule"));
    }
    const HloInstructionSequence& seq = found->second;
    absl::flat_hash_map<const HloInstruction*, int64_t> position;
    for (int64_t k = 0; k < seq.size(); ++k) {
      const HloInstruction* i = seq.instructions()[k];
      if (i->parent() != c || i->unique_id() != seq.ids()[k]) {
        return absl::FailedPreconditionError(StrCat(
            "schedule of computation ", c->name(), " holds an instruction (id ", seq.ids()[k],
            ") that is not in the computation"));
      }
      if (!position.emplace(i, k).second) {
        return absl::FailedPreconditionError(StrCat(
            "instruction ", i->name(), " appears more than once in the schedule of ", c->name()));
      }
    }
    if (seq.size() != c->instruction_count()) {
      for (const HloInstruction* i : c->instructions()) {
        if (!position.contains(i)) {
          return absl::FailedPreconditionError(StrCat(
              "instruction ", i->name(), " of computation ", c->name(), " is not scheduled"));
        }
      }
    }
    for (const auto& [i, pos] : position) {
      for (const HloInstruction* op : i->operands()) {
        if (position.at(op) >= pos) {
          return absl::FailedPreconditionError(StrCat("instruction ", i->name(),
                                                            " is scheduled before its operand ",
                                                            op->name(), " in ", c->name()));
        }
      }
      for (const HloInstruction* p : i->control_predecessors()) {
        if (position.at(p) >= pos) {
          return absl::FailedPreconditionError(StrCat(
              "instruction ", i->name(), " is scheduled before its control predecessor ",
              p->name(), " in ", c->name()));
        }
      }
    }
  }
  return absl::OkStatus();
}

std::string HloSchedule::ToString() const {
  std::string out = "schedule:\n";
  for (HloComputation* c : module_->computations()) {
    auto found = sequences_.find(c->unique_id());
    if (found == sequences_.end()) continue;
    StrAppend(&out, "  ", c->name(), ":\n");
    for (const HloInstruction* i : found->second.instructions()) {
      StrAppend(&out, "    ", i->name(), "\n");
    }
  }
  return out;
}

bool HloSchedule::SameOrderAs(const HloSchedule& other) const {
  auto names = [](const HloSchedule& s) {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (HloComputation* c : s.module_->computations()) {
      auto found = s.sequences_.find(c->unique_id());
      if (found == s.sequences_.end()) continue;
      std::vector<std::string> instrs;
      for (const HloInstruction* i : found->second.instructions()) instrs.push_back(i->name());
      out.emplace_back(c->name(), std::move(instrs));
    }
    return out;
  };
  return names(*this) == names(other);
}

HloSchedule CompletedSchedule(const HloModule& module, bool* complete) {
  HloSchedule schedule(&module);
  bool covered = module.has_schedule();
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    if (module.has_schedule() && module.schedule().is_computation_scheduled(computation)) {
      schedule.set_sequence(computation, module.schedule().sequence(computation));
    } else {
      covered = false;
      schedule.set_sequence(computation, computation->MakeInstructionPostOrder());
    }
  }
  if (complete != nullptr) *complete = covered;
  return schedule;
}

}  // namespace hmo
