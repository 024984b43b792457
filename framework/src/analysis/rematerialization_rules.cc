#include "hmo/analysis/rematerialization_rules.h"

#include <array>
#include <utility>

#include "hmo/ir/hlo_opcode.h"

namespace hmo {
namespace {

// Opcodes that are never computed again, and why.
constexpr std::array<std::pair<HloOpcode, const char*>, 6> kNeverRematerialized = {{
    {HloOpcode::kParameter, "a parameter"},
    {HloOpcode::kConstant, "a constant"},
    {HloOpcode::kCall, "a call"},
    {HloOpcode::kConditional, "a conditional"},
    {HloOpcode::kWhile, "a while loop"},
    {HloOpcode::kCustomCall, "a custom call (opaque code)"},
}};

}  // namespace

std::optional<std::string> WhyNotRematerializable(const HloInstruction& instruction) {
  const HloOpcode opcode = instruction.opcode();
  for (const auto& [never, what] : kNeverRematerialized) {
    if (opcode == never) return std::string(what);
  }
  if (opcode == HloOpcode::kCopy && instruction.shape().IsArray() &&
      instruction.operand(0)->shape().IsArray() && instruction.shape().has_layout() &&
      instruction.operand(0)->shape().has_layout() &&
      instruction.shape().layout() == instruction.operand(0)->shape().layout()) {
    return std::string("a copy that keeps its operand's layout (copy insertion's)");
  }
  if (IsCollectiveOpcode(opcode)) {
    const std::optional<std::string_view> constrained =
        instruction.GetRawAttribute("constrain_layout");
    if (constrained.has_value() && *constrained == "true") {
      return std::string("a collective with a constrained layout");
    }
    return std::nullopt;
  }
  if (instruction.HasSideEffect()) {
    return std::string(HloOpcodeString(opcode)) + " has side effects";
  }
  return std::nullopt;
}

}  // namespace hmo
