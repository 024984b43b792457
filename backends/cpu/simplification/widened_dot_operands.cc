#include "cpu/simplification/widened_dot_operands.h"

#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "hmo/base/status_macros.h"
#include "hmo/codegen/fusion_emitter.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::cpu {
namespace {

bool IsHalfFloat(PrimitiveType type) {
  return type == PrimitiveType::BF16 || type == PrimitiveType::F16;
}

bool IsF32Array(const HloInstruction& instruction) {
  return instruction.shape().IsArray() && instruction.shape().element_type() == PrimitiveType::F32;
}

// Instructions that only move values: they give the same result on the
// 16-bit values as on their widenings.
bool MovesValuesOnly(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kBitcast:
    case HloOpcode::kCopy:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
      return instruction.operand_count() == 1;
    default:
      return false;
  }
}

bool HasControlEdges(const HloInstruction& instruction) {
  return !instruction.control_predecessors().empty() || !instruction.control_successors().empty();
}

// How an f32 dot operand widens a 16-bit value: `chain` runs from the
// producer's result (a fusion's root) down to the convert, each value used
// by the next only; `narrow` is the convert's operand type.
struct Widening {
  std::vector<HloInstruction*> chain;
  PrimitiveType narrow = PrimitiveType::PRIMITIVE_TYPE_INVALID;
};

std::optional<Widening> FindWidening(HloInstruction& producer) {
  if (!IsF32Array(producer) || HasControlEdges(producer) || producer.HasSideEffectNoRecurse()) {
    return std::nullopt;
  }
  HloInstruction* at = &producer;
  Widening widening;
  if (producer.opcode() == HloOpcode::kFusion) {
    HloComputation* fused = producer.fused_instructions_computation();
    if (producer.fusion_kind() != FusionKind::kLoop || fused == nullptr ||
        fused->caller_instructions().size() != 1) {
      return std::nullopt;
    }
    at = fused->root_instruction();
    while (MovesValuesOnly(*at) && IsF32Array(*at)) {
      widening.chain.push_back(at);
      at = at->mutable_operand(0);
      if (at->user_count() != 1) return std::nullopt;
    }
  }
  if (at->opcode() != HloOpcode::kConvert || !IsF32Array(*at) ||
      !IsHalfFloat(at->operand(0)->shape().element_type())) {
    return std::nullopt;
  }
  widening.chain.push_back(at);
  widening.narrow = at->operand(0)->shape().element_type();
  return widening;
}

// An f32 dot and where its operands come from: `user` is the dot itself or
// the output fusion computing it, and `operand_numbers` are the operands of
// `user` that the dot's lhs and rhs read.
struct DotSite {
  HloInstruction* user = nullptr;
  std::array<int64_t, 2> operand_numbers = {0, 1};
};

bool IsF32Dot(const HloInstruction& dot) {
  return dot.opcode() == HloOpcode::kDot && dot.operand_count() == 2 && IsF32Array(dot) &&
         IsF32Array(*dot.operand(0)) && IsF32Array(*dot.operand(1));
}

std::optional<DotSite> FindDotSite(HloInstruction& instruction) {
  if (HasControlEdges(instruction)) return std::nullopt;
  if (IsF32Dot(instruction)) return DotSite{&instruction, {0, 1}};
  if (instruction.opcode() != HloOpcode::kFusion ||
      !codegen::IsOutputFusionEmittable(instruction)) {
    return std::nullopt;
  }
  const HloComputation* fused = instruction.fused_instructions_computation();
  if (fused->caller_instructions().size() != 1) return std::nullopt;
  for (const HloInstruction* dot : fused->instructions()) {
    if (!IsF32Dot(*dot)) continue;
    DotSite site{&instruction, {}};
    for (int64_t k = 0; k < 2; ++k) {
      const HloInstruction* parameter = dot->operand(k);
      if (parameter->opcode() != HloOpcode::kParameter) return std::nullopt;
      for (const HloInstruction* user : parameter->users()) {
        if (user != dot) return std::nullopt;
      }
      site.operand_numbers[k] = parameter->parameter_number();
    }
    return site;
  }
  return std::nullopt;
}

// The 16-bit value outside any fusion that `producer` widens when the
// convert is all it computes (a plain convert, or a fusion converting a
// parameter), else null.
HloInstruction* BypassedValue(HloInstruction* producer, const Widening& widening) {
  HloInstruction* value = widening.chain.back()->mutable_operand(0);
  if (producer->opcode() != HloOpcode::kFusion) return value;
  if (widening.chain.size() == 1 && value->opcode() == HloOpcode::kParameter) {
    return producer->mutable_operand(value->parameter_number());
  }
  return nullptr;
}

// Makes the fusion `producer` end before its widening convert: the moves
// after it run on the 16-bit values.
absl::Status NarrowFusion(HloInstruction* producer, const Widening& widening) {
  HloInstruction* convert = widening.chain.back();
  HloInstruction* value = convert->mutable_operand(0);
  for (HloInstruction* mover : widening.chain) {
    if (mover != convert) mover->mutable_shape()->set_element_type(widening.narrow);
  }
  HloComputation* fused = producer->fused_instructions_computation();
  if (convert == fused->root_instruction()) {
    fused->set_root_instruction(value);
  } else {
    HMO_RETURN_IF_ERROR(convert->ReplaceAllUsesWithDifferentShape(value));
  }
  HMO_RETURN_IF_ERROR(fused->RemoveInstruction(convert));
  producer->mutable_shape()->set_element_type(widening.narrow);
  return absl::OkStatus();
}

// Whether `user` reads `producer` only as an operand of its dot (`site`).
bool ReadsOnlyAsDotOperand(const HloInstruction& user, const DotSite& site,
                           const HloInstruction* producer) {
  for (int64_t i = 0; i < user.operand_count(); ++i) {
    if (user.operand(i) == producer && i != site.operand_numbers[0] &&
        i != site.operand_numbers[1]) {
      return false;
    }
  }
  return true;
}

// The widening producers of `computation` that can all be narrowed
// together: each is read only by dot sites, as a dot operand, and each such
// dot's other operand is one of them of the same 16-bit type. Values a
// producer would be bypassed to stay distinct among a fusion's operands.
std::vector<std::pair<HloInstruction*, Widening>> NarrowableProducers(
    HloComputation& computation, const absl::flat_hash_map<HloInstruction*, DotSite>& sites) {
  absl::flat_hash_map<HloInstruction*, Widening> widenings;
  std::vector<HloInstruction*> order;
  for (HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    if (instruction->IsRoot()) continue;
    std::optional<Widening> widening = FindWidening(*instruction);
    if (!widening.has_value()) continue;
    widenings.emplace(instruction, *std::move(widening));
    order.push_back(instruction);
  }
  const auto keeps = [&](HloInstruction* producer) {
    const Widening& widening = widenings.at(producer);
    HloInstruction* bypassed = BypassedValue(producer, widening);
    if (producer->user_count() == 0) return false;
    for (HloInstruction* user : producer->users()) {
      const auto site = sites.find(user);
      if (site == sites.end() || !ReadsOnlyAsDotOperand(*user, site->second, producer)) {
        return false;
      }
      std::array<HloInstruction*, 2> operands;
      for (int64_t k = 0; k < 2; ++k) {
        operands[k] = user->mutable_operand(site->second.operand_numbers[k]);
        const auto other = widenings.find(operands[k]);
        if (other == widenings.end() || other->second.narrow != widening.narrow) return false;
      }
      if (user->opcode() != HloOpcode::kFusion || bypassed == nullptr) continue;
      // A fusion's operands stay distinct.
      for (const HloInstruction* operand : user->operands()) {
        if (operand == bypassed) return false;
      }
      if (operands[0] != operands[1]) {
        HloInstruction* other = operands[0] == producer ? operands[1] : operands[0];
        if (BypassedValue(other, widenings.at(other)) == bypassed) return false;
      }
    }
    return true;
  };
  // The largest such set: drop producers that fail until none does.
  bool dropped = true;
  while (dropped) {
    dropped = false;
    for (HloInstruction*& producer : order) {
      if (producer == nullptr || keeps(producer)) continue;
      widenings.erase(producer);
      producer = nullptr;
      dropped = true;
    }
  }
  std::vector<std::pair<HloInstruction*, Widening>> narrowable;
  for (HloInstruction* producer : order) {
    if (producer != nullptr) narrowable.emplace_back(producer, widenings.at(producer));
  }
  return narrowable;
}

// Narrows `producer` (NarrowableProducers) and makes its readers read the
// 16-bit value.
absl::Status NarrowProducer(HloModule& module, HloInstruction* producer, const Widening& widening) {
  HloInstruction* bypassed = BypassedValue(producer, widening);
  HloInstruction* value = bypassed != nullptr ? bypassed : producer;
  if (bypassed == nullptr) HMO_RETURN_IF_ERROR(NarrowFusion(producer, widening));
  const std::vector<HloInstruction*> users = producer->users();
  for (HloInstruction* user : users) {
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operand(i) != producer) continue;
      if (value != producer) HMO_RETURN_IF_ERROR(user->ReplaceOperandWithDifferentShape(i, value));
      if (user->opcode() == HloOpcode::kFusion) {
        user->fused_parameter(i)->mutable_shape()->set_element_type(widening.narrow);
      }
    }
  }
  if (value != producer) HMO_RETURN_IF_ERROR(module.RemoveDeadInstruction(producer));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> NarrowWidenedDotOperands(HloModule& module) {
  int64_t narrowed = 0;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    absl::flat_hash_map<HloInstruction*, DotSite> sites;
    for (HloInstruction* instruction : computation->instructions()) {
      if (std::optional<DotSite> site = FindDotSite(*instruction))
        sites.emplace(instruction, *site);
    }
    if (sites.empty()) continue;
    for (auto& [producer, widening] : NarrowableProducers(*computation, sites)) {
      HMO_RETURN_IF_ERROR(NarrowProducer(module, producer, widening));
      ++narrowed;
    }
  }
  return narrowed;
}

}  // namespace hmo::cpu
