#include "hmo/scheduling/scheduling_view.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/instruction_reachability.h"
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

// Orderings that donation imposes on an entry computation: an output that
// input_output_alias places in a donated parameter's buffer overwrites the
// parameter, so every other reader of the parameter must run before the
// output's producer. (Without them a strategy may pick an order that only
// runs correctly with an extra copy of the output.) Readers that depend on
// the producer are left out: there the copy is unavoidable.
std::vector<std::pair<const HloInstruction*, const HloInstruction*>> DonationOrderings(
    const HloComputation& computation) {
  std::vector<std::pair<const HloInstruction*, const HloInstruction*>> orderings;
  const HloModule* module = computation.parent();
  if (module == nullptr || module->entry_computation() != &computation) return orderings;
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr) return orderings;
  module->input_output_alias_config().ForEachAlias(
      [&](const ShapeIndex& output_index, const HloInputOutputAliasConfig::Alias& alias) {
        if (!alias.parameter_index.empty() ||
            alias.parameter_number >= computation.num_parameters())
          return;
        const HloInstruction* producer = nullptr;
        if (output_index.empty()) {
          producer = root;
        } else if (output_index.size() == 1 && root->opcode() == HloOpcode::kTuple &&
                   output_index[0] < root->operand_count()) {
          producer = root->operand(output_index[0]);
        }
        const HloInstruction* parameter = computation.parameter_instruction(alias.parameter_number);
        if (producer == nullptr || producer == parameter ||
            producer->opcode() == HloOpcode::kParameter)
          return;
        for (const HloInstruction* reader : parameter->users()) {
          if (reader == producer || reader == root || DependsOn(*reader, *producer)) continue;
          orderings.emplace_back(reader, producer);
        }
      });
  return orderings;
}

}  // namespace

std::optional<HmoInstructionId> SchedulingView::IdOf(const HloInstruction* instruction) const {
  auto it = ids_.find(instruction);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::unique_ptr<SchedulingView> BuildSchedulingView(const HloComputation& computation,
                                                    const MayShareOperandBufferFn& may_share,
                                                    const SchedulingValueSource* values) {
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
  for (const auto& [before, after] : DonationOrderings(computation)) {
    donation_predecessors[after].push_back(const_cast<HloInstruction*>(before));
    donation_successors[before].push_back(const_cast<HloInstruction*>(after));
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
