#include "rematerialization_block.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hmo/analysis/flop_count.h"
#include "hmo/analysis/rematerialization_rules.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"
#include "peak_crossing.h"
#include "value_buffers.h"

namespace hmo {
namespace {

// Whether `instruction` reads (through tuple elements and bitcasts) a
// parameter whose buffer is written in place. Computed again later, it
// could read the new contents: copy insertion protects only the reads the
// module had.
bool ReadsParameterUpdatedInPlace(const HloInstruction& instruction) {
  return std::any_of(instruction.operands().begin(), instruction.operands().end(),
                     [](const HloInstruction* operand) {
                       while (operand->opcode() == HloOpcode::kGetTupleElement ||
                              operand->opcode() == HloOpcode::kBitcast) {
                         operand = operand->operand(0);
                       }
                       return operand->opcode() == HloOpcode::kParameter &&
                              IsWrittenInPlace(*operand);
                     });
}

bool MayRecompute(const HloInstruction& instruction) {
  return instruction.shape().IsArray() && !AliasesAnotherBuffer(instruction) &&
         !instruction.IsRoot() && instruction.control_predecessors().empty() &&
         instruction.control_successors().empty() && !WhyNotRematerializable(instruction) &&
         !ReadsParameterUpdatedInPlace(instruction);
}

using Positions = SequencePositions;

// Whether `instruction` holds its bytes at `peak` anyway: a parameter or a
// constant (held for the whole run), a value used at or after the peak, or
// an alias of a buffer held elsewhere.
bool LiveAtPeak(const HloInstruction& instruction, const Positions& positions, int64_t peak) {
  if (instruction.opcode() == HloOpcode::kParameter ||
      instruction.opcode() == HloOpcode::kConstant || AliasesAnotherBuffer(instruction) ||
      instruction.IsRoot()) {
    return true;
  }
  return std::any_of(instruction.users().begin(), instruction.users().end(),
                     [&](const HloInstruction* user) {
                       auto it = positions.find(user);
                       return it != positions.end() && it->second >= peak;
                     });
}

// Grows the block of `value` by the operands dead at the peak, up to
// `max_size` instructions, breadth first; fills the estimate.
RematerializationBlock GrowBlock(const HloComputation& computation, const HloInstruction& value,
                                 const Positions& positions, int64_t peak, int64_t max_size) {
  std::vector<const HloInstruction*> members = {&value};
  absl::flat_hash_set<const HloInstruction*> in_block = {&value};
  for (size_t next = 0; next < members.size(); ++next) {
    for (const HloInstruction* operand : members[next]->unique_operands()) {
      if (in_block.contains(operand) || LiveAtPeak(*operand, positions, peak)) continue;
      if (static_cast<int64_t>(members.size()) >= max_size || !MayRecompute(*operand)) continue;
      members.push_back(operand);
      in_block.insert(operand);
    }
  }
  // Operands outside the block that were dead at the peak now live across it.
  absl::flat_hash_set<const HloInstruction*> extended;
  for (const HloInstruction* member : members) {
    for (const HloInstruction* operand : member->unique_operands()) {
      if (!in_block.contains(operand) && !LiveAtPeak(*operand, positions, peak)) {
        extended.insert(operand);
      }
    }
  }
  std::sort(members.begin(), members.end(), [&](const HloInstruction* a, const HloInstruction* b) {
    return positions.at(a) < positions.at(b);
  });
  // A member whose every use moves to the clones is moved, not recomputed:
  // the value when nothing before the peak reads it, an operand when only
  // moved members read it. Users first, so walk the members backwards.
  absl::flat_hash_set<const HloInstruction*> moved;
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    const HloInstruction* member = *it;
    const bool all_uses_move = std::all_of(
        member->users().begin(), member->users().end(), [&](const HloInstruction* user) {
          return member == &value ? positions.at(user) > peak : moved.contains(user);
        });
    if (all_uses_move) moved.insert(member);
  }
  RematerializationBlock block;
  block.computation = computation.name();
  block.peak_position = peak;
  block.estimated_freed_bytes = DeviceArrayBytes(value);
  for (const HloInstruction* operand : extended) {
    block.estimated_freed_bytes -= DeviceArrayBytes(*operand);
  }
  for (const HloInstruction* member : members) {
    block.instructions.push_back(member->name());
    if (moved.contains(member)) continue;
    block.flops += FlopCount(*member);
    block.bytes_written += DeviceArrayBytes(*member);
  }
  return block;
}

// A copy of fused computation `fused` for a cloned fusion, named after it.
absl::StatusOr<HloComputation*> CloneFusedComputation(HloModule& module,
                                                      const HloComputation& fused) {
  auto copy = std::make_unique<HloComputation>(fused.name());  // uniquified when added
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copy_of;
  for (const HloInstruction* parameter : fused.parameter_instructions()) {
    copy_of[parameter] = copy->AddParameter(parameter->Clone(""));
  }
  for (const HloInstruction* instruction : fused.MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kParameter) continue;
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instruction->operands()) {
      operands.push_back(copy_of.at(operand));
    }
    std::unique_ptr<HloInstruction> clone =
        instruction->CloneWithNewOperands(instruction->shape(), operands);
    if (instruction->opcode() == HloOpcode::kFusion) {
      HMO_ASSIGN_OR_RETURN(
          HloComputation * nested,
          CloneFusedComputation(module, *instruction->fused_instructions_computation()));
      clone->set_called_computations({nested});
    }
    copy_of[instruction] = copy->AddInstruction(std::move(clone));
  }
  copy->set_root_instruction(copy_of.at(fused.root_instruction()));
  return module.AddEmbeddedComputation(std::move(copy));
}

}  // namespace

std::string RematerializationBlock::ToString() const {
  if (instructions.size() == 1) return value();
  return absl::StrCat(value(), " (with ", instructions.size() - 1,
                      instructions.size() == 2 ? " operand)" : " operands)");
}

std::vector<RematerializationBlock> FindRematerializationBlocks(const HloModule& module,
                                                                const HloComputation& computation,
                                                                int64_t peak_position,
                                                                int64_t max_block_size) {
  std::vector<RematerializationBlock> blocks;
  const PeakCrossing crossing = FindValuesCrossingPeak(module, computation, peak_position);
  for (const HloInstruction* value : crossing.values) {
    if (!MayRecompute(*value) || DeviceArrayBytes(*value) == 0) continue;
    std::set<std::vector<std::string>> seen;
    for (int64_t size = 1; size <= max_block_size; ++size) {
      RematerializationBlock block =
          GrowBlock(computation, *value, crossing.positions, peak_position, size);
      if (block.estimated_freed_bytes <= 0 || !seen.insert(block.instructions).second) continue;
      blocks.push_back(std::move(block));
    }
  }
  return blocks;
}

absl::StatusOr<HloInstruction*> ApplyRematerializationBlock(HloModule& module,
                                                            const RematerializationBlock& block) {
  HMO_ASSIGN_OR_RETURN(ScheduledComputation scheduled,
                       FindScheduledComputation(module, block.computation));
  HloComputation* computation = scheduled.computation;
  HloInstructionSequence& sequence = *scheduled.sequence;
  std::vector<HloInstruction*> members;
  for (const std::string& name : block.instructions) {
    HloInstruction* member = computation->GetInstructionWithName(name);
    if (member == nullptr) {
      return absl::NotFoundError(absl::StrCat("no instruction ", name, " in ", block.computation));
    }
    members.push_back(member);
  }
  HloInstruction* value = members.back();
  HMO_ASSIGN_OR_RETURN(const UsesAroundPeak uses,
                       FindUsesAroundPeak(*value, scheduled.positions, block.peak_position));
  int64_t insert_at = uses.first_after;

  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clone_of;
  for (HloInstruction* member : members) {
    std::vector<HloInstruction*> operands;
    for (HloInstruction* operand : member->operands()) {
      auto it = clone_of.find(operand);
      operands.push_back(it == clone_of.end() ? operand : it->second);
    }
    std::unique_ptr<HloInstruction> clone = member->CloneWithNewOperands(member->shape(), operands);
    if (member->opcode() == HloOpcode::kFusion) {
      HMO_ASSIGN_OR_RETURN(
          HloComputation * fused,
          CloneFusedComputation(module, *member->fused_instructions_computation()));
      clone->set_called_computations({fused});
    }
    HloInstruction* added =
        computation->AddInstruction(std::move(clone), absl::StrCat(member->name(), ".remat"));
    sequence.insert_instruction(added, insert_at++);
    clone_of[member] = added;
  }
  HloInstruction* recomputed = clone_of.at(value);
  for (HloInstruction* user : uses.later_users) {
    HMO_RETURN_IF_ERROR(value->ReplaceUseWith(user, recomputed));
  }
  // Originals nothing reads any more were moved, not recomputed: they go,
  // users first, with the fused computations of fusions.
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    HloInstruction* member = *it;
    if (!member->IsDead()) continue;
    HloComputation* fused =
        member->opcode() == HloOpcode::kFusion ? member->fused_instructions_computation() : nullptr;
    sequence.remove_instruction(member);
    HMO_RETURN_IF_ERROR(computation->RemoveInstruction(member));
    if (fused != nullptr) HMO_RETURN_IF_ERROR(module.RemoveComputation(fused));
  }
  return recomputed;
}

}  // namespace hmo
