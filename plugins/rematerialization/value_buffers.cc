#include "value_buffers.h"

#include <algorithm>
#include <vector>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"

namespace hmo {

bool AliasesAnotherBuffer(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kBitcast:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
      return true;
    default:
      return false;
  }
}

int64_t DeviceArrayBytes(const HloInstruction& instruction) {
  const Shape& shape = instruction.shape();
  if (!shape.IsArray() || shape.memory_space() == Layout::kHostMemorySpace) return 0;
  return ShapeUtil::ByteSizeOf(shape);
}

bool IsDonatedArgument(const HloInstruction& parameter) {
  const HloComputation& computation = *parameter.parent();
  const HloModule* module = computation.parent();
  if (module == nullptr || &computation != module->entry_computation()) return false;
  bool donated = false;
  module->input_output_alias_config().ForEachAlias(
      [&](const ShapeIndex&, const HloInputOutputAliasConfig::Alias& alias) {
        donated |= alias.parameter_number == parameter.parameter_number();
      });
  return donated || module->buffer_donor_config().ParameterIsBufferDonor(
                        parameter.parameter_number(), ShapeIndex{});
}

bool IsWrittenInPlace(const HloInstruction& parameter) {
  if (IsDonatedArgument(parameter)) return true;
  const HloComputation& computation = *parameter.parent();
  const std::vector<HloInstruction*>& callers = computation.caller_instructions();
  return std::any_of(callers.begin(), callers.end(), [&](const HloInstruction* caller) {
    return caller->opcode() == HloOpcode::kWhile && caller->while_body() == &computation;
  });
}

}  // namespace hmo
