#include "hmo/strategy_host/scheduling_view.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "hmo/ir/donation_orderings.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/shape.h"

namespace hmo {
namespace {

void MarkLiveOut(const HloInstruction* instruction,
                 absl::flat_hash_map<const HloInstruction*, bool>& live_out) {
  if (live_out[instruction]) return;
  live_out[instruction] = true;
  if (instruction->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* operand : instruction->operands()) MarkLiveOut(operand, live_out);
  }
}

}  // namespace

std::optional<HmoInstructionId> SchedulingView::IdOf(const HloInstruction* instruction) const {
  auto it = ids_.find(instruction);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<std::unique_ptr<SchedulingView>> BuildSchedulingView(
    const HloComputation& computation, const MayShareOperandBufferFn& may_share,
    const SchedulingValueSource* values) {
  // Donation orders become control edges; cyclic ones would hand every
  // strategy a graph with no order (the verifier's alias-cycle rule).
  const std::vector<DonationOrdering> orderings = DonationOrderings(computation);
  if (const std::vector<ShapeIndex> cycle = DonationCycle(computation, orderings); !cycle.empty()) {
    std::string listed;
    for (const ShapeIndex& output_index : cycle) {
      listed += (listed.empty() ? "" : " and ") + ShapeIndexToString(output_index);
    }
    return absl::FailedPreconditionError(fmt::format(
        "computation '{}' cannot be scheduled: the donations of outputs {} (input_output_alias) "
        "order each parameter's readers before the output written over it, and these orders "
        "form a cycle with the data dependencies (verifier rule alias-cycle)",
        computation.name(), listed));
  }
  std::unique_ptr<SchedulingView> result(new SchedulingView());
  SchedulingView& view = *result;
  for (const HloInstruction* instruction : computation.instructions()) {
    view.ids_.emplace(instruction, static_cast<HmoInstructionId>(view.instructions_.size()));
    view.instructions_.push_back(const_cast<HloInstruction*>(instruction));
  }
  absl::flat_hash_map<const HloInstruction*, bool> live_out;
  if (computation.root_instruction() != nullptr)
    MarkLiveOut(computation.root_instruction(), live_out);

  auto ids_of = [&](const std::vector<HloInstruction*>& instructions) {
    std::vector<HmoInstructionId> ids;
    for (const HloInstruction* instruction : instructions) {
      if (auto it = view.ids_.find(instruction); it != view.ids_.end()) ids.push_back(it->second);
    }
    return ids;
  };

  view.storage_.resize(view.instructions_.size());
  absl::flat_hash_map<const HloInstruction*, std::vector<HloInstruction*>> donation_predecessors;
  absl::flat_hash_map<const HloInstruction*, std::vector<HloInstruction*>> donation_successors;
  for (const DonationOrdering& ordering : orderings) {
    donation_predecessors[ordering.writer].push_back(const_cast<HloInstruction*>(ordering.reader));
    donation_successors[ordering.reader].push_back(const_cast<HloInstruction*>(ordering.writer));
  }
  // Appends ids of `extra` not already in `ids`.
  auto add_ids = [&](std::vector<HmoInstructionId>& ids,
                     const std::vector<HloInstruction*>& extra) {
    for (HmoInstructionId id : ids_of(extra)) {
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
  };
  for (size_t id = 0; id < view.instructions_.size(); ++id) {
    const HloInstruction& instruction = *view.instructions_[id];
    SchedulingView::Storage& storage = view.storage_[id];
    storage.name = instruction.name();
    storage.opcode = std::string(HloOpcodeString(instruction.opcode()));
    storage.operands = ids_of(instruction.operands());
    storage.users = ids_of(instruction.users());
    std::sort(storage.users.begin(), storage.users.end());
    storage.users.erase(std::unique(storage.users.begin(), storage.users.end()),
                        storage.users.end());
    storage.control_predecessors = ids_of(instruction.control_predecessors());
    storage.control_successors = ids_of(instruction.control_successors());
    if (auto it = donation_predecessors.find(&instruction); it != donation_predecessors.end()) {
      add_ids(storage.control_predecessors, it->second);
    }
    if (auto it = donation_successors.find(&instruction); it != donation_successors.end()) {
      add_ids(storage.control_successors, it->second);
    }
    if (may_share) {
      for (int64_t i = 0; i < instruction.operand_count(); ++i) {
        const HmoInstructionId operand = storage.operands[i];
        const bool seen = std::find(storage.may_share.begin(), storage.may_share.end(), operand) !=
                          storage.may_share.end();
        if (!seen && may_share(instruction, i)) storage.may_share.push_back(operand);
      }
    }
    HmoSchedulingInstruction& c = storage.c;
    c.struct_size = sizeof(HmoSchedulingInstruction);
    c.id = static_cast<HmoInstructionId>(id);
    c.name = storage.name.c_str();
    c.opcode = storage.opcode.c_str();
    c.operand_ids = storage.operands.data();
    c.operand_count = storage.operands.size();
    c.user_ids = storage.users.data();
    c.user_count = storage.users.size();
    c.control_predecessor_ids = storage.control_predecessors.data();
    c.control_predecessor_count = storage.control_predecessors.size();
    c.control_successor_ids = storage.control_successors.data();
    c.control_successor_count = storage.control_successors.size();
    c.bytes_defined = static_cast<uint64_t>(ShapeUtil::ByteSizeOf(instruction.shape()));
    c.may_share_operand_ids = storage.may_share.data();
    c.may_share_operand_count = storage.may_share.size();
    c.is_live_out = live_out.contains(&instruction) ? 1 : 0;
    c.flags = SchedulingInstructionFlags(instruction);
  }
  for (const SchedulingView::Storage& storage : view.storage_) view.pointers_.push_back(&storage.c);
  if (values != nullptr && values->dataflow != nullptr) {
    view.values_ = SchedulingViewValues::Build(computation, view.instructions_, *values->dataflow,
                                               values->size_fn, values->alias_analysis,
                                               values->mark_outside_temp_arena);
  }

  view.computation_name_ = computation.name();
  view.module_name_ = computation.parent() != nullptr ? computation.parent()->name() : "";
  view.view_.struct_size = sizeof(HmoSchedulingView);
  view.view_.computation_name = view.computation_name_.c_str();
  view.view_.module_name = view.module_name_.c_str();
  view.view_.instruction_count = view.instructions_.size();
  view.view_.instructions = view.pointers_.data();
  view.view_.root_id =
      computation.root_instruction() != nullptr ? view.ids_.at(computation.root_instruction()) : 0;
  if (view.values_ != nullptr) {
    std::vector<HmoSchedulingInstruction*> structs;
    for (SchedulingView::Storage& storage : view.storage_) structs.push_back(&storage.c);
    view.values_->Attach(view.view_, structs);
  }
  return result;
}

}  // namespace hmo
