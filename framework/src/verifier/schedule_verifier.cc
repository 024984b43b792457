#include "hmo/verifier/schedule_verifier.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_schedule.h"
#include "str_util.h"

namespace hmo {

using verifier_internal::StrAppend;
using verifier_internal::StrCat;
namespace {

void CheckSequence(const HloComputation& comp, const HloInstructionSequence& seq,
                   VerifierErrorSink& sink) {
  // Live instructions by unique id: sequence entries are matched by id and
  // pointer, so a removed (possibly freed) instruction is never dereferenced.
  absl::flat_hash_map<int64_t, const HloInstruction*> live;
  for (const HloInstruction* i : comp.instructions()) live[i->unique_id()] = i;

  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  for (int64_t k = 0; k < seq.size(); ++k) {
    if (sink.full()) return;
    int64_t id = seq.ids()[k];
    auto it = live.find(id);
    if (it == live.end() || it->second != seq.instructions()[k]) {
      sink.AddComputationError(comp, "schedule-foreign-instruction",
                               StrCat("schedule position ", k, " holds an instruction (id ", id,
                                      ") that is not in the computation"));
      continue;
    }
    if (!position.emplace(it->second, k).second) {
      sink.AddInstructionError(comp, *it->second, "schedule-duplicate",
                               StrCat("instruction appears more than once in the schedule ",
                                      "(positions ", position[it->second], " and ", k, ")"));
    }
  }
  for (const HloInstruction* i : comp.instructions()) {
    if (sink.full()) return;
    if (!position.contains(i)) {
      sink.AddInstructionError(comp, *i, "schedule-missing-instruction",
                               "instruction is not in the computation's schedule");
    }
  }
  for (const HloInstruction* i : comp.instructions()) {
    auto self = position.find(i);
    if (self == position.end()) continue;
    for (const HloInstruction* op : i->unique_operands()) {
      if (sink.full()) return;
      auto p = position.find(op);
      if (p != position.end() && p->second >= self->second) {
        sink.AddInstructionError(comp, *i, "schedule-order",
                                 StrCat("instruction is scheduled at position ", self->second,
                                        ", not after its operand ", op->name(),
                                        " at position ", p->second));
      }
    }
    for (const HloInstruction* pred : i->control_predecessors()) {
      if (sink.full()) return;
      auto p = position.find(pred);
      if (p != position.end() && p->second >= self->second) {
        sink.AddInstructionError(comp, *i, "schedule-order",
                                 StrCat("instruction is scheduled at position ", self->second,
                                        ", not after its control predecessor ", pred->name(),
                                        " at position ", p->second));
      }
    }
  }
}

}  // namespace

void CheckModuleSchedule(const HloModule& module, VerifierErrorSink& sink) {
  if (!module.has_schedule()) return;
  const HloSchedule& schedule = module.schedule();
  if (schedule.module() != &module) {
    sink.AddModuleError(HloModule::HeaderAttribute::kIsScheduled, "schedule-module",
                        "the schedule was made for a different module");
    return;
  }
  absl::flat_hash_set<const HloComputation*> fusion_computations;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() != HloOpcode::kFusion) continue;
      for (const HloComputation* callee : i->called_computations()) {
        if (callee != nullptr) fusion_computations.insert(callee);
      }
    }
  }
  absl::flat_hash_map<int64_t, const HloComputation*> by_id;
  for (const HloComputation* c : module.computations()) by_id[c->unique_id()] = c;

  for (const auto& [id, seq] : schedule.sequences()) {
    if (sink.full()) return;
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      sink.AddModuleError(HloModule::HeaderAttribute::kIsScheduled, "schedule-extra-sequence",
                          StrCat("the schedule has a sequence for computation id ", id,
                                 ", which is not in the module"));
    } else if (fusion_computations.contains(it->second)) {
      sink.AddComputationError(*it->second, "schedule-extra-sequence",
                               "fusion computations are not scheduled, but this one has a "
                               "sequence");
    }
  }
  for (const HloComputation* c : module.computations()) {
    if (sink.full()) return;
    if (fusion_computations.contains(c)) continue;
    if (!schedule.is_computation_scheduled(c)) {
      sink.AddComputationError(*c, "schedule-missing-sequence",
                               "computation has no sequence in the module's schedule");
      continue;
    }
    CheckSequence(*c, schedule.sequence(c), sink);
  }
}

absl::Status VerifyModuleSchedule(const HloModule& module) {
  VerifierErrorSink sink(module, /*limit=*/1);
  CheckModuleSchedule(module, sink);
  if (sink.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(sink.errors().front().ToString());
}

}  // namespace hmo
