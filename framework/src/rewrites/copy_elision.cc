#include "hmo/rewrites/copy_elision.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/ir/shape.h"

namespace hmo {
namespace {

constexpr int64_t kBeforeStart = std::numeric_limits<int64_t>::min() / 4;
constexpr int64_t kAfterEnd = std::numeric_limits<int64_t>::max() / 4;

// A definition or use of a group's value at a position of P's sequence.
struct Event {
  const HloInstruction* instruction;
  int64_t position;
};

// The values of one or more HloBuffers that share storage, as seen from P.
struct Group {
  bool read_only = false;
  std::vector<Event> defs;
  std::vector<Event> uses;
};

// Positions in P's sequence of P's instructions, and of instructions of the
// computations P calls (at the calling instruction's position).
class Timeline {
 public:
  Timeline(const HloComputation* computation, const HloInstructionSequence& sequence)
      : computation_(computation) {
    const std::vector<HloInstruction*>& instructions = sequence.instructions();
    for (int64_t i = 0; i < static_cast<int64_t>(instructions.size()); ++i) {
      position_[instructions[i]] = i;
    }
  }

  // Nullopt for an instruction neither in P nor in a computation P calls
  // through a chain of single callers.
  std::optional<int64_t> PositionOf(const HloInstruction* instruction) const {
    for (int depth = 0; depth < 64; ++depth) {
      const HloComputation* parent = instruction->parent();
      if (parent == computation_) {
        auto it = position_.find(instruction);
        if (it == position_.end()) return std::nullopt;
        return it->second;
      }
      if (parent == nullptr || parent->caller_instructions().size() != 1) return std::nullopt;
      instruction = parent->caller_instructions().front();
    }
    return std::nullopt;
  }

 private:
  const HloComputation* computation_;
  absl::flat_hash_map<const HloInstruction*, int64_t> position_;
};

// The group of `buffer`'s values as P sees them.
Group MakeGroup(const HloBuffer& buffer, const HloComputation& computation,
                const HloComputation& entry, const Timeline& timeline) {
  Group group;
  for (const HloValue* value : buffer.values()) {
    const HloInstruction* definer = value->defining_instruction();
    if (definer->opcode() == HloOpcode::kConstant) group.read_only = true;
    // P's own parameters belong to P's caller; the entry's to the user.
    if (definer->opcode() == HloOpcode::kParameter &&
        (definer->parent() == &computation || definer->parent() == &entry)) {
      group.read_only = true;
    }
    const std::optional<int64_t> defined = timeline.PositionOf(definer);
    if (!defined.has_value()) {
      group.read_only = true;  // not placeable in P's time: leave it alone
      continue;
    }
    group.defs.push_back({definer, *defined});
    for (const HloUse& use : value->GetUses()) {
      const std::optional<int64_t> used = timeline.PositionOf(use.instruction);
      if (!used.has_value()) {
        group.read_only = true;
        continue;
      }
      group.uses.push_back({use.instruction, *used});
    }
    bool live_out = value->live_out_of_module();
    for (const HloPosition& position : value->positions()) {
      live_out |= position.instruction == computation.root_instruction();
    }
    if (live_out) group.uses.push_back({nullptr, kAfterEnd});
  }
  return group;
}

// Elides what it can among `copies` of `computation` (scheduled).
absl::StatusOr<int64_t> ElideInComputation(HloModule& module, HloComputation& computation,
                                           const std::vector<HloInstruction*>& copies) {
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloAliasAnalysis> analysis, HloAliasAnalysis::Run(&module));
  const Timeline timeline(&computation, module.schedule().sequence(&computation));
  // Union-find over buffer ids; groups built on first use.
  std::vector<int64_t> parent(analysis->buffers().size());
  std::iota(parent.begin(), parent.end(), 0);
  std::map<int64_t, Group> groups;
  auto find = [&](int64_t id) {
    while (parent[id] != id) id = parent[id] = parent[parent[id]];
    return id;
  };
  auto group_of = [&](int64_t id) -> Group& {
    id = find(id);
    auto it = groups.find(id);
    if (it == groups.end()) {
      it = groups
               .emplace(id, MakeGroup(analysis->GetBuffer(id), computation,
                                      *module.entry_computation(), timeline))
               .first;
    }
    return it->second;
  };

  int64_t elided = 0;
  for (HloInstruction* copy : copies) {
    HloInstruction* source = copy->mutable_operand(0);
    if (!copy->control_predecessors().empty() || !copy->control_successors().empty() ||
        !copy->shape().IsArray() || !(copy->shape() == source->shape()) ||
        copy == computation.root_instruction()) {
      continue;
    }
    const std::vector<const HloBuffer*> source_buffers = analysis->ComputeBuffersAt(source);
    const std::vector<const HloBuffer*> copy_buffers = analysis->ComputeBuffersAt(copy);
    if (source_buffers.size() != 1 || copy_buffers.size() != 1) continue;
    const int64_t source_id = find(source_buffers.front()->id());
    const int64_t copy_id = find(copy_buffers.front()->id());
    if (source_id == copy_id) continue;
    const std::optional<int64_t> at = timeline.PositionOf(copy);
    if (!at.has_value()) continue;
    Group& from = group_of(source_id);
    Group& to = group_of(copy_id);
    if (from.read_only || to.read_only) continue;
    int64_t last_source_def = kBeforeStart, last_source_use = kBeforeStart;
    for (const Event& def : from.defs) last_source_def = std::max(last_source_def, def.position);
    for (const Event& use : from.uses) {
      if (use.instruction != copy) last_source_use = std::max(last_source_use, use.position);
    }
    int64_t first_copy_write = kAfterEnd;
    for (const Event& def : to.defs) {
      if (def.instruction != copy) first_copy_write = std::min(first_copy_write, def.position);
    }
    // x's values all written before the copy, all read before anything of
    // the copy's buffer but the copy itself is written there.
    if (!(last_source_def < *at && *at < first_copy_write && last_source_use < first_copy_write)) {
      continue;
    }
    HMO_RETURN_IF_ERROR(computation.ReplaceInstruction(copy, source));
    Group merged;
    for (const Event& def : from.defs) merged.defs.push_back(def);
    for (const Event& def : to.defs) {
      if (def.instruction != copy) merged.defs.push_back(def);
    }
    for (const Event& use : from.uses) {
      if (use.instruction != copy) merged.uses.push_back(use);
    }
    for (const Event& use : to.uses) merged.uses.push_back(use);
    groups.erase(source_id);
    groups.erase(copy_id);
    parent[source_id] = copy_id;
    groups[copy_id] = std::move(merged);
    ++elided;
  }
  return elided;
}

}  // namespace

absl::StatusOr<int64_t> ElideCopies(HloModule& module, const std::vector<HloInstruction*>& copies) {
  if (!module.has_schedule() || !module.has_entry_computation()) return 0;
  // By computation, in the order given.
  std::vector<HloComputation*> order;
  absl::flat_hash_map<HloComputation*, std::vector<HloInstruction*>> by_computation;
  for (HloInstruction* copy : copies) {
    if (copy->opcode() != HloOpcode::kCopy || copy->parent() == nullptr) continue;
    HloComputation* computation = copy->parent();
    if (!module.schedule().is_computation_scheduled(computation)) continue;
    auto [it, inserted] = by_computation.try_emplace(computation);
    if (inserted) order.push_back(computation);
    it->second.push_back(copy);
  }
  int64_t elided = 0;
  for (HloComputation* computation : order) {
    HMO_ASSIGN_OR_RETURN(const int64_t count,
                         ElideInComputation(module, *computation, by_computation[computation]));
    if (count > 0) HMO_RETURN_IF_ERROR(module.schedule().Update());
    elided += count;
  }
  return elided;
}

}  // namespace hmo
