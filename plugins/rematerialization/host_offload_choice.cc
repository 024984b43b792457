#include "host_offload_choice.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/instruction_source.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"
#include "peak_crossing.h"
#include "value_buffers.h"

namespace hmo {
namespace {

bool MayOffload(const HloInstruction& instruction) {
  // A device array with a layout, to give its host copy memory space S(5).
  if (DeviceArrayBytes(instruction) == 0 || !instruction.shape().has_layout()) return false;
  if (instruction.opcode() == HloOpcode::kParameter ||
      instruction.opcode() == HloOpcode::kConstant || AliasesAnotherBuffer(instruction)) {
    return false;
  }
  return !instruction.IsRoot() && instruction.control_predecessors().empty() &&
         instruction.control_successors().empty();
}

}  // namespace

std::vector<HostOffloadChoice> FindHostOffloadChoices(const HloModule& module,
                                                      const HloComputation& computation,
                                                      int64_t peak_position) {
  std::vector<HostOffloadChoice> choices;
  for (const HloInstruction* value :
       FindValuesCrossingPeak(module, computation, peak_position).values) {
    if (!MayOffload(*value)) continue;
    choices.push_back({computation.name(), value->name(), peak_position, DeviceArrayBytes(*value)});
  }
  return choices;
}

absl::StatusOr<HloInstruction*> ApplyHostOffloadChoice(HloModule& module,
                                                       const HostOffloadChoice& choice) {
  HMO_ASSIGN_OR_RETURN(ScheduledComputation scheduled,
                       FindScheduledComputation(module, choice.computation));
  HloComputation* computation = scheduled.computation;
  HloInstruction* value = computation->GetInstructionWithName(choice.value);
  if (value == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no instruction ", choice.value, " in ", choice.computation));
  }
  HMO_ASSIGN_OR_RETURN(const UsesAroundPeak uses,
                       FindUsesAroundPeak(*value, scheduled.positions, choice.peak_position));
  Shape host_shape = value->shape();
  host_shape.mutable_layout()->set_memory_space(Layout::kHostMemorySpace);
  HloInstruction* to_host =
      computation->AddInstruction(HloInstruction::CreateUnary(host_shape, HloOpcode::kCopy, value),
                                  absl::StrCat(value->name(), ".to_host"));
  HloInstruction* to_device = computation->AddInstruction(
      HloInstruction::CreateUnary(value->shape(), HloOpcode::kCopy, to_host),
      absl::StrCat(value->name(), ".to_device"));
  // The copies carry the metadata that names the value's source (a fusion
  // without its own: what it fused): reports name them by the user's line
  // that made the value, not as values without a source.
  const std::string metadata(SourceInstruction(*value).metadata_text());
  if (!metadata.empty()) {
    to_host->SetRawAttribute("metadata", metadata);
    to_device->SetRawAttribute("metadata", metadata);
  }
  // The copy back first: inserting it does not move positions before it.
  scheduled.sequence->insert_instruction(to_device, uses.first_after);
  scheduled.sequence->insert_instruction(to_host, uses.last_before + 1);
  for (HloInstruction* user : uses.later_users) {
    HMO_RETURN_IF_ERROR(value->ReplaceUseWith(user, to_device));
  }
  return to_device;
}

}  // namespace hmo
