#include "hlo_mutator.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/instruction_reachability.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/literal.h"
#include "hmo/ir/primitive_type.h"
#include "hmo/ir/shape.h"

namespace hmo::fuzz {
namespace {

// Opcodes that may replace each other: same arity, same operand and result
// types.
constexpr std::array kFloatBinary = {HloOpcode::kAdd,    HloOpcode::kSubtract, HloOpcode::kMultiply,
                                     HloOpcode::kDivide, HloOpcode::kMaximum,  HloOpcode::kMinimum,
                                     HloOpcode::kPower,  HloOpcode::kAtan2};
constexpr std::array kFloatUnary = {HloOpcode::kNegate, HloOpcode::kAbs,  HloOpcode::kExp,
                                    HloOpcode::kLog,    HloOpcode::kSin,  HloOpcode::kCos,
                                    HloOpcode::kTanh,   HloOpcode::kSqrt, HloOpcode::kRsqrt,
                                    HloOpcode::kFloor,  HloOpcode::kCeil, HloOpcode::kSign};
constexpr std::array kIntegerBinary = {HloOpcode::kAdd, HloOpcode::kSubtract, HloOpcode::kMultiply,
                                       HloOpcode::kMaximum, HloOpcode::kMinimum};

template <typename T>
T Pick(const std::vector<T>& items, std::mt19937_64& rng) {
  return items[std::uniform_int_distribution<size_t>(0, items.size() - 1)(rng)];
}

std::vector<HloInstruction*> AllInstructions(HloModule& module) {
  std::vector<HloInstruction*> all;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction : computation->instructions()) all.push_back(instruction);
  }
  return all;
}

template <size_t N>
bool Contains(const std::array<HloOpcode, N>& opcodes, HloOpcode opcode) {
  return std::find(opcodes.begin(), opcodes.end(), opcode) != opcodes.end();
}

HloMutation MutateOpcode(HloModule& module, std::mt19937_64& rng) {
  std::vector<HloInstruction*> candidates;
  for (HloInstruction* instruction : AllInstructions(module)) {
    if (!instruction->shape().IsArray() || !instruction->control_predecessors().empty() ||
        !instruction->control_successors().empty()) {
      continue;
    }
    const bool floating = primitive_util::IsFloatingPointType(instruction->shape().element_type());
    const HloOpcode opcode = instruction->opcode();
    if ((floating && (Contains(kFloatBinary, opcode) || Contains(kFloatUnary, opcode))) ||
        (!floating && primitive_util::IsIntegralType(instruction->shape().element_type()) &&
         Contains(kIntegerBinary, opcode))) {
      candidates.push_back(instruction);
    }
  }
  if (candidates.empty()) return HloMutation::kCount;
  HloInstruction* old = Pick(candidates, rng);
  const bool floating = primitive_util::IsFloatingPointType(old->shape().element_type());
  std::vector<HloOpcode> choices;
  if (old->operand_count() == 1) {
    choices.assign(kFloatUnary.begin(), kFloatUnary.end());
  } else if (floating) {
    choices.assign(kFloatBinary.begin(), kFloatBinary.end());
  } else {
    choices.assign(kIntegerBinary.begin(), kIntegerBinary.end());
  }
  const HloOpcode opcode = Pick(choices, rng);
  if (opcode == old->opcode()) return HloMutation::kCount;
  HloComputation* computation = old->parent();
  HloInstruction* replacement =
      computation->AddInstruction(HloInstruction::Create(opcode, old->shape(), old->operands()));
  if (!computation->ReplaceInstruction(old, replacement).ok()) return HloMutation::kCount;
  return HloMutation::kOpcode;
}

HloMutation MutateOperand(HloModule& module, std::mt19937_64& rng) {
  std::vector<HloInstruction*> users;
  for (HloInstruction* instruction : AllInstructions(module)) {
    if (instruction->operand_count() > 0) users.push_back(instruction);
  }
  if (users.empty()) return HloMutation::kCount;
  HloInstruction* user = Pick(users, rng);
  const int64_t index = std::uniform_int_distribution<int64_t>(0, user->operand_count() - 1)(rng);
  const HloInstruction* operand = user->operand(index);
  std::vector<HloInstruction*> candidates;
  for (HloInstruction* other : user->parent()->instructions()) {
    if (other == operand || other == user || !(other->shape() == operand->shape())) continue;
    // No cycle: the new operand must not need the user.
    if (DependsOn(*other, *user)) continue;
    candidates.push_back(other);
  }
  if (candidates.empty()) return HloMutation::kCount;
  if (!user->ReplaceOperandWith(index, Pick(candidates, rng)).ok()) return HloMutation::kCount;
  return HloMutation::kOperand;
}

HloMutation MutateLayout(HloModule& module, std::mt19937_64& rng, bool memory_space) {
  std::vector<HloInstruction*> candidates;
  for (HloInstruction* instruction : AllInstructions(module)) {
    const Shape& shape = instruction->shape();
    if (!shape.IsArray() || !shape.has_layout()) continue;
    if (memory_space || shape.rank() >= 2) candidates.push_back(instruction);
  }
  if (candidates.empty()) return HloMutation::kCount;
  Layout* layout = Pick(candidates, rng)->mutable_shape()->mutable_layout();
  if (memory_space) {
    layout->set_memory_space(layout->memory_space() == 0 ? 5 : 0);
    return HloMutation::kMemorySpace;
  }
  std::vector<int64_t>& order = *layout->mutable_minor_to_major();
  std::shuffle(order.begin(), order.end(), rng);
  return HloMutation::kLayout;
}

HloMutation MutateConstant(HloModule& module, std::mt19937_64& rng) {
  std::vector<HloInstruction*> candidates;
  for (HloInstruction* instruction : AllInstructions(module)) {
    if (instruction->opcode() == HloOpcode::kConstant && instruction->shape().IsScalar() &&
        instruction->has_literal() &&
        (primitive_util::IsIntegralType(instruction->shape().element_type()) ||
         primitive_util::IsFloatingPointType(instruction->shape().element_type()))) {
      candidates.push_back(instruction);
    }
  }
  if (candidates.empty()) return HloMutation::kCount;
  HloInstruction* constant = Pick(candidates, rng);
  const PrimitiveType type = constant->shape().element_type();
  const std::vector<int64_t> values = {-1, 0, 1, 2, 3, 7, 8, 15, 16, 17, 100, 4096};
  const int64_t value = Pick(values, rng);
  constant->set_literal(primitive_util::IsIntegralType(type)
                            ? Literal::CreateR0FromInt(type, value)
                            : Literal::CreateR0FromDouble(type, static_cast<double>(value) / 4));
  return HloMutation::kConstant;
}

HloMutation MutateAlias(HloModule& module, std::mt19937_64& rng) {
  HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return HloMutation::kCount;
  HloInputOutputAliasConfig& aliases = module.input_output_alias_config();
  if (!aliases.aliases().empty() && std::bernoulli_distribution(0.3)(rng)) {
    std::vector<ShapeIndex> outputs;
    for (const auto& [output, alias] : aliases.aliases()) outputs.push_back(output);
    aliases.RemoveAlias(Pick(outputs, rng));
    return HloMutation::kAlias;
  }
  // An output leaf (top level or one tuple level) and a parameter of the
  // same array shape.
  const Shape& result = entry->root_instruction()->shape();
  std::vector<std::pair<ShapeIndex, const Shape*>> leaves;
  if (result.IsArray()) {
    leaves.push_back({{}, &result});
  } else if (result.IsTuple()) {
    for (int64_t i = 0; i < static_cast<int64_t>(result.tuple_shapes().size()); ++i) {
      if (result.tuple_shapes()[i].IsArray()) leaves.push_back({{i}, &result.tuple_shapes()[i]});
    }
  }
  if (leaves.empty()) return HloMutation::kCount;
  const auto& [output, shape] = Pick(leaves, rng);
  std::vector<int64_t> parameters;
  for (const HloInstruction* parameter : entry->parameter_instructions()) {
    if (ShapeUtil::EqualIgnoringLayout(parameter->shape(), *shape)) {
      parameters.push_back(parameter->parameter_number());
    }
  }
  if (parameters.empty()) return HloMutation::kCount;
  aliases.RemoveAlias(output);
  if (!aliases.SetUpAlias(output, Pick(parameters, rng), {}).ok()) return HloMutation::kCount;
  return HloMutation::kAlias;
}

}  // namespace

std::string_view HloMutationName(HloMutation mutation) {
  switch (mutation) {
    case HloMutation::kOpcode:
      return "opcode";
    case HloMutation::kOperand:
      return "operand";
    case HloMutation::kLayout:
      return "layout";
    case HloMutation::kMemorySpace:
      return "memory-space";
    case HloMutation::kConstant:
      return "constant";
    case HloMutation::kAlias:
      return "alias";
    case HloMutation::kCount:
      break;
  }
  return "none";
}

HloMutation MutateModule(HloModule& module, std::mt19937_64& rng) {
  const auto kind = static_cast<HloMutation>(
      std::uniform_int_distribution<int>(0, static_cast<int>(HloMutation::kCount) - 1)(rng));
  switch (kind) {
    case HloMutation::kOpcode:
      return MutateOpcode(module, rng);
    case HloMutation::kOperand:
      return MutateOperand(module, rng);
    case HloMutation::kLayout:
      return MutateLayout(module, rng, /*memory_space=*/false);
    case HloMutation::kMemorySpace:
      return MutateLayout(module, rng, /*memory_space=*/true);
    case HloMutation::kConstant:
      return MutateConstant(module, rng);
    case HloMutation::kAlias:
      return MutateAlias(module, rng);
    case HloMutation::kCount:
      break;
  }
  return HloMutation::kCount;
}

}  // namespace hmo::fuzz
