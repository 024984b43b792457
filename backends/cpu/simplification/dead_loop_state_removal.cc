#include "cpu/simplification/dead_loop_state_removal.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo::cpu {
namespace {

using IndexSet = absl::flat_hash_set<int64_t>;

bool HasControlEdges(const HloInstruction& instruction) {
  return !instruction.control_predecessors().empty() || !instruction.control_successors().empty();
}

// Whether every user of `computation`'s only parameter reads one element.
bool ReadsStateThroughElementsOnly(const HloComputation& computation) {
  if (computation.num_parameters() != 1) return false;
  const HloInstruction* state = computation.parameter_instruction(0);
  if (state->IsRoot()) return false;
  for (const HloInstruction* user : state->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return false;
  }
  return true;
}

// The loop-state elements each instruction of a body or condition depends
// on (through operands), memoized.
class StateDependencies {
 public:
  explicit StateDependencies(const HloComputation& computation)
      : state_(computation.parameter_instruction(0)) {}

  const IndexSet& Of(const HloInstruction* instruction) {
    auto it = memo_.find(instruction);
    if (it != memo_.end()) return it->second;
    IndexSet indices;
    if (instruction->opcode() == HloOpcode::kGetTupleElement && instruction->operand(0) == state_) {
      indices.insert(instruction->tuple_index());
    } else {
      for (const HloInstruction* operand : instruction->operands()) {
        const IndexSet& of_operand = Of(operand);
        indices.insert(of_operand.begin(), of_operand.end());
      }
    }
    return memo_.emplace(instruction, std::move(indices)).first->second;
  }

  // The elements that instructions which must stay whatever their users
  // (side effects, control edges) and `root` depend on.
  IndexSet Pinned(const HloComputation& computation, const HloInstruction* root) {
    IndexSet pinned = Of(root);
    for (const HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
      if (instruction->HasSideEffect() || HasControlEdges(*instruction)) {
        const IndexSet& of = Of(instruction);
        pinned.insert(of.begin(), of.end());
      }
    }
    return pinned;
  }

 private:
  const HloInstruction* state_;
  absl::flat_hash_map<const HloInstruction*, IndexSet> memo_;
};

// Whether `loop` is a while this pass can rewrite (dead_loop_state_removal.h).
bool IsRewritable(const HloInstruction& loop) {
  if (!loop.shape().IsTuple() || loop.IsRoot() || loop.operand_count() != 1) return false;
  const HloComputation* body = loop.while_body();
  const HloComputation* condition = loop.while_condition();
  if (body == nullptr || condition == nullptr || body == condition) return false;
  if (body->caller_instructions().size() != 1 || condition->caller_instructions().size() != 1) {
    return false;
  }
  if (!ReadsStateThroughElementsOnly(*body) || !ReadsStateThroughElementsOnly(*condition)) {
    return false;
  }
  const HloInstruction* root = body->root_instruction();
  if (root->opcode() != HloOpcode::kTuple || !root->users().empty() ||
      root->operand_count() != loop.shape().tuple_shapes_size()) {
    return false;
  }
  for (const HloInstruction* user : loop.users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return false;
  }
  return true;
}

// The elements of `loop`'s state something needs (dead_loop_state_removal.h).
std::vector<bool> NeededElements(const HloInstruction& loop) {
  const int64_t size = loop.shape().tuple_shapes_size();
  std::vector<bool> needed(size, false);
  std::vector<int64_t> worklist;
  auto need = [&](int64_t index) {
    if (index < 0 || index >= size || needed[index]) return;
    needed[index] = true;
    worklist.push_back(index);
  };
  for (const HloInstruction* user : loop.users()) {
    if (!user->IsDead()) need(user->tuple_index());
  }
  const HloComputation& condition = *loop.while_condition();
  StateDependencies condition_reads(condition);
  for (int64_t index : condition_reads.Pinned(condition, condition.root_instruction())) {
    need(index);
  }
  const HloComputation& body = *loop.while_body();
  StateDependencies body_reads(body);
  const HloInstruction* root = body.root_instruction();
  for (const HloInstruction* instruction : body.MakeInstructionPostOrder()) {
    if (instruction != root && (instruction->HasSideEffect() || HasControlEdges(*instruction))) {
      for (int64_t index : body_reads.Of(instruction)) need(index);
    }
  }
  while (!worklist.empty()) {
    const int64_t index = worklist.back();
    worklist.pop_back();
    for (int64_t read : body_reads.Of(root->operand(index))) need(read);
  }
  return needed;
}

// Removes the instructions of `computation` nothing uses (never parameters,
// the root, or instructions with side effects or control edges).
absl::Status RemoveDeadInstructions(HloComputation& computation) {
  std::vector<HloInstruction*> post_order = computation.MakeInstructionPostOrder();
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    HloInstruction* instruction = *it;
    if (instruction->opcode() == HloOpcode::kParameter || !instruction->IsDead() ||
        instruction->HasSideEffect() || HasControlEdges(*instruction)) {
      continue;
    }
    HMO_RETURN_IF_ERROR(computation.RemoveInstruction(instruction));
  }
  return absl::OkStatus();
}

// Gives `computation`'s state parameter `shape` and renumbers the elements it
// reads by `new_index`. Every remaining read must be of a kept element.
absl::Status NarrowState(HloComputation& computation, const Shape& shape,
                         const std::vector<int64_t>& new_index) {
  HMO_RETURN_IF_ERROR(RemoveDeadInstructions(computation));
  HloInstruction* state = computation.parameter_instruction(0);
  for (HloInstruction* read : state->users()) {
    const int64_t kept = new_index[read->tuple_index()];
    if (kept < 0) {
      return absl::InternalError("dead-loop-state-removal: " + computation.name() +
                                 " still reads a dropped element through " + read->name());
    }
    read->set_tuple_index(kept);
  }
  *state->mutable_shape() = shape;
  return absl::OkStatus();
}

absl::StatusOr<bool> RemoveDeadElements(HloInstruction* loop) {
  if (!IsRewritable(*loop)) return false;
  const std::vector<bool> needed = NeededElements(*loop);
  const int64_t size = static_cast<int64_t>(needed.size());
  std::vector<int64_t> new_index(size, -1);
  std::vector<int64_t> kept;
  std::vector<Shape> kept_shapes;
  for (int64_t i = 0; i < size; ++i) {
    if (!needed[i]) continue;
    new_index[i] = static_cast<int64_t>(kept.size());
    kept.push_back(i);
    kept_shapes.push_back(loop->shape().tuple_shapes(i));
  }
  // Nothing to drop; or everything, which leaves a loop whose condition reads
  // no state (never or always ending): kept as written.
  if (kept.empty() || static_cast<int64_t>(kept.size()) == size) return false;
  const Shape narrowed = Shape::MakeTuple(kept_shapes);

  HloComputation& body = *loop->while_body();
  HloInstruction* old_root = body.root_instruction();
  std::vector<HloInstruction*> root_elements;
  for (int64_t i : kept) root_elements.push_back(old_root->mutable_operand(i));
  HloInstruction* new_root = body.AddInstruction(HloInstruction::CreateTuple(root_elements));
  new_root->SetAndSanitizeName(old_root->name());
  body.set_root_instruction(new_root);
  HMO_RETURN_IF_ERROR(NarrowState(body, narrowed, new_index));
  HMO_RETURN_IF_ERROR(NarrowState(*loop->while_condition(), narrowed, new_index));

  HloComputation& parent = *loop->parent();
  HloInstruction* old_init = loop->mutable_operand(0);
  std::vector<HloInstruction*> init_elements;
  for (int64_t i : kept) {
    init_elements.push_back(
        old_init->opcode() == HloOpcode::kTuple
            ? old_init->mutable_operand(i)
            : parent.AddInstruction(HloInstruction::CreateGetTupleElement(old_init, i)));
  }
  HloInstruction* new_init = parent.AddInstruction(HloInstruction::CreateTuple(init_elements));
  *loop->mutable_shape() = narrowed;
  HMO_RETURN_IF_ERROR(loop->ReplaceOperandWithDifferentShape(0, new_init));
  if (old_init->IsDead() && !old_init->HasSideEffect() && !HasControlEdges(*old_init)) {
    HMO_RETURN_IF_ERROR(parent.RemoveInstructionAndUnusedOperands(old_init));
  }
  for (HloInstruction* read : std::vector<HloInstruction*>(loop->users())) {
    const int64_t index = new_index[read->tuple_index()];
    if (index >= 0) {
      read->set_tuple_index(index);
    } else {
      HMO_RETURN_IF_ERROR(parent.RemoveInstruction(read));
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> DeadLoopStateRemoval::Run(HloModule& module, PassContext& /*context*/) {
  bool changed = false;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    std::vector<HloInstruction*> loops;
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kWhile) loops.push_back(instruction);
    }
    for (HloInstruction* loop : loops) {
      HMO_ASSIGN_OR_RETURN(bool removed, RemoveDeadElements(loop));
      changed |= removed;
    }
  }
  if (changed && module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  return changed;
}

}  // namespace hmo::cpu
