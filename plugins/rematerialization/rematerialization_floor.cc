#include "rematerialization_floor.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"
#include "value_buffers.h"

namespace hmo {
namespace {

// The device bytes of `instruction`'s own array value while it is an operand
// or result; 0 for values that may share memory counted elsewhere: the
// undonated arguments (counted whole), constants and aliases. A donated
// argument counts: its buffer is the output's, and holds it until read.
int64_t OwnDeviceBytes(const HloInstruction& instruction) {
  if (instruction.opcode() == HloOpcode::kParameter) {
    return IsDonatedArgument(instruction) ? DeviceArrayBytes(instruction) : 0;
  }
  if (instruction.opcode() == HloOpcode::kConstant || AliasesAnotherBuffer(instruction)) return 0;
  return DeviceArrayBytes(instruction);
}

}  // namespace

RematerializationFloor ComputeRematerializationFloor(const HloModule& module,
                                                     const CompiledMemoryStats& stats) {
  const int64_t whole_run =
      stats.argument_size_in_bytes + stats.output_size_in_bytes - stats.alias_size_in_bytes;
  const int64_t undonated_arguments = stats.argument_size_in_bytes - stats.alias_size_in_bytes;
  RematerializationFloor floor{whole_run, ""};
  for (const HloComputation* computation : module.computations()) {
    if (computation->IsFusionComputation()) continue;
    for (const HloInstruction* instruction : computation->instructions()) {
      int64_t operands = 0;
      absl::flat_hash_set<const HloInstruction*> counted;
      for (const HloInstruction* operand : instruction->operands()) {
        if (counted.insert(operand).second) operands += OwnDeviceBytes(*operand);
      }
      const int64_t bytes = undonated_arguments + std::max(operands, OwnDeviceBytes(*instruction));
      if (bytes > floor.bytes) floor = {bytes, instruction->name()};
    }
  }
  return floor;
}

}  // namespace hmo
