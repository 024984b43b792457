#include "convert_memory_placement_to_internal_annotations.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "memory_annotations.h"

namespace hmo {
namespace {

// The internal custom-call target for a `_xla_buffer_placement` value, or
// nullopt for a value this pass does not rewrite.
std::optional<std::string_view> InternalTargetFor(std::string_view placement) {
  namespace ma = memory_annotations;
  if (placement == ma::kMemoryTargetPinnedHost || placement == ma::kMemoryTargetUnpinnedHost) {
    return ma::kMoveToHostCustomCallTarget;
  }
  if (placement == ma::kMemoryTargetDevice) return ma::kMoveToDeviceCustomCallTarget;
  if (placement == ma::kMemoryTargetPinnedDevice) return ma::kPinToDeviceCustomCallTarget;
  if (placement == ma::kMemoryTargetDeviceSram) return ma::kPinToDeviceSramCustomCallTarget;
  return std::nullopt;
}

// Rewrites one annotate_device_placement custom-call. Returns whether it did.
absl::StatusOr<bool> ConvertAnnotation(HloComputation& computation, HloInstruction* annotation) {
  std::optional<std::string_view> placement =
      annotation->frontend_attributes().Get(memory_annotations::kXlaBufferPlacementAttr);
  if (!placement.has_value()) return false;
  std::optional<std::string_view> target = InternalTargetFor(*placement);
  if (!target.has_value()) return false;
  if (annotation->operand_count() != 1) {
    return absl::InternalError(absl::StrFormat(
        "custom-call %s with target %s (%s=\"%s\") must have exactly one operand, but has %d",
        annotation->name(), memory_annotations::kDevicePlacement,
        memory_annotations::kXlaBufferPlacementAttr, *placement, annotation->operand_count()));
  }
  HloInstruction* input = annotation->mutable_operand(0);
  std::unique_ptr<HloInstruction> internal =
      HloInstruction::CreateCustomCall(input->shape(), {input}, *target);
  if (std::optional<std::string_view> sharding = annotation->GetRawAttribute("sharding")) {
    internal->SetRawAttribute("sharding", std::string(*sharding));
  }
  HloInstruction* added = computation.AddInstruction(std::move(internal));
  HMO_RETURN_IF_ERROR(annotation->ReplaceAllUsesWith(added));
  HMO_RETURN_IF_ERROR(computation.RemoveInstructionAndUnusedOperands(annotation));
  return true;
}

}  // namespace

absl::StatusOr<bool> ConvertMemoryPlacementToInternalAnnotations::Run(HloModule& module,
                                                                      PassContext& /*context*/) {
  bool changed = false;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kCustomCall ||
          instruction->custom_call_target() != memory_annotations::kDevicePlacement) {
        continue;
      }
      HMO_ASSIGN_OR_RETURN(bool converted, ConvertAnnotation(*computation, instruction));
      changed |= converted;
    }
  }
  if (changed && module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  return changed;
}

}  // namespace hmo
