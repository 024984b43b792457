#include "host_offload_choice.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"

namespace hmo {
namespace {

bool MayOffload(const HloInstruction& instruction) {
  const Shape& shape = instruction.shape();
  if (!shape.IsArray() || !shape.has_layout() || shape.memory_space() == Layout::kHostMemorySpace) {
    return false;
  }
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBitcast:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
      return false;
    default:
      return !instruction.IsRoot() && instruction.control_predecessors().empty() &&
             instruction.control_successors().empty();
  }
}

}  // namespace

std::vector<HostOffloadChoice> FindHostOffloadChoices(const HloModule& module,
                                                      const HloComputation& computation,
                                                      int64_t peak_position) {
  std::vector<HostOffloadChoice> choices;
  if (!module.has_schedule() || !module.schedule().is_computation_scheduled(&computation)) {
    return choices;
  }
  const std::vector<HloInstruction*>& sequence =
      module.schedule().sequence(&computation).instructions();
  absl::flat_hash_map<const HloInstruction*, int64_t> positions;
  for (int64_t i = 0; i < static_cast<int64_t>(sequence.size()); ++i) positions[sequence[i]] = i;
  for (int64_t i = 0; i < peak_position && i < static_cast<int64_t>(sequence.size()); ++i) {
    const HloInstruction& value = *sequence[i];
    if (!MayOffload(value)) continue;
    bool used_at_peak = false, used_after = false;
    for (const HloInstruction* user : value.users()) {
      const int64_t position = positions.at(user);
      used_at_peak |= position == peak_position;
      used_after |= position > peak_position;
    }
    if (used_at_peak || !used_after) continue;
    choices.push_back(
        {computation.name(), value.name(), peak_position, ShapeUtil::ByteSizeOf(value.shape())});
  }
  return choices;
}

absl::StatusOr<HloInstruction*> ApplyHostOffloadChoice(HloModule& module,
                                                       const HostOffloadChoice& choice) {
  HloComputation* computation = module.GetComputationWithName(choice.computation);
  if (computation == nullptr) {
    return absl::NotFoundError(absl::StrCat("no computation ", choice.computation));
  }
  if (!module.has_schedule() || !module.schedule().is_computation_scheduled(computation)) {
    return absl::FailedPreconditionError(
        absl::StrCat("computation ", choice.computation, " is not scheduled"));
  }
  HloInstruction* value = computation->GetInstructionWithName(choice.value);
  if (value == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no instruction ", choice.value, " in ", choice.computation));
  }
  HloInstructionSequence& sequence = module.schedule().GetOrCreateSequence(computation);
  absl::flat_hash_map<const HloInstruction*, int64_t> positions;
  for (int64_t i = 0; i < sequence.size(); ++i) positions[sequence.instructions()[i]] = i;

  int64_t last_before = positions.at(value);
  int64_t first_after = sequence.size();
  std::vector<HloInstruction*> later_users;
  for (HloInstruction* user : value->users()) {
    const int64_t position = positions.at(user);
    if (position < choice.peak_position) {
      last_before = std::max(last_before, position);
    } else if (position > choice.peak_position) {
      first_after = std::min(first_after, position);
      if (std::find(later_users.begin(), later_users.end(), user) == later_users.end()) {
        later_users.push_back(user);
      }
    }
  }
  if (later_users.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(value->name(), " has no use after the peak"));
  }
  Shape host_shape = value->shape();
  host_shape.mutable_layout()->set_memory_space(Layout::kHostMemorySpace);
  HloInstruction* to_host =
      computation->AddInstruction(HloInstruction::CreateUnary(host_shape, HloOpcode::kCopy, value),
                                  absl::StrCat(value->name(), ".to_host"));
  HloInstruction* to_device = computation->AddInstruction(
      HloInstruction::CreateUnary(value->shape(), HloOpcode::kCopy, to_host),
      absl::StrCat(value->name(), ".to_device"));
  // The copy back first: inserting it does not move positions before it.
  sequence.insert_instruction(to_device, first_after);
  sequence.insert_instruction(to_host, last_before + 1);
  for (HloInstruction* user : later_users) {
    HMO_RETURN_IF_ERROR(value->ReplaceUseWith(user, to_device));
  }
  return to_device;
}

}  // namespace hmo
