#include "hmo/rewrites/copy_insertion.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/pass_context.h"
#include "hmo/rewrites/copy_elision.h"

namespace hmo {
namespace {

// Rebuilds `value` (any shape) in `computation` with `copy_leaf` applied to
// each array leaf: tuple instructions are looked through (so a tuple only
// the rebuilt user used becomes dead), other tuple values are taken apart
// with get-tuple-element; tokens and other non-array leaves pass through.
template <typename CopyLeaf>
HloInstruction* DeepCopy(HloComputation* computation, HloInstruction* value, CopyLeaf copy_leaf,
                         const ShapeIndex& index = {}) {
  const Shape& shape = value->shape();
  if (shape.IsArray()) return copy_leaf(value, index);
  if (!shape.IsTuple()) return value;
  std::vector<HloInstruction*> elements;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size()); ++i) {
    HloInstruction* element =
        value->opcode() == HloOpcode::kTuple
            ? value->mutable_operand(i)
            : computation->AddInstruction(HloInstruction::CreateGetTupleElement(value, i));
    ShapeIndex child = index;
    child.push_back(i);
    elements.push_back(DeepCopy(computation, element, copy_leaf, child));
  }
  return computation->AddInstruction(HloInstruction::CreateTuple(elements));
}

// Makes `new_root` the root; the old root goes when nothing uses it any more
// (a tuple the rebuild looked through).
absl::Status ReplaceRoot(HloComputation* computation, HloInstruction* new_root) {
  HloInstruction* old_root = computation->root_instruction();
  computation->set_root_instruction(new_root);
  if (old_root != new_root && old_root->user_count() == 0 &&
      old_root->opcode() != HloOpcode::kParameter) {
    return computation->RemoveInstruction(old_root);
  }
  return absl::OkStatus();
}

HloInstruction* AddCopy(HloComputation* computation, HloInstruction* value) {
  return computation->AddInstruction(HloInstruction::CreateCopy(value->shape(), value));
}

// The leaf of `root` at `index` when it is built of tuples, else null.
const HloInstruction* LeafOfTupleTree(const HloInstruction* root, const ShapeIndex& index) {
  for (int64_t i : index) {
    if (root->opcode() != HloOpcode::kTuple) return nullptr;
    root = root->operand(i);
  }
  return root;
}

// Whether `leaf` is the body parameter's own element at `index`, passed
// through unchanged (get-tuple-element chains from the parameter).
bool IsPassThrough(const HloInstruction* leaf, const HloInstruction* parameter,
                   const ShapeIndex& index) {
  for (auto it = index.rbegin(); it != index.rend(); ++it) {
    if (leaf == nullptr || leaf->opcode() != HloOpcode::kGetTupleElement ||
        leaf->tuple_index() != *it) {
      return false;
    }
    leaf = leaf->operand(0);
  }
  return leaf == parameter;
}

absl::Status CopyWhileInit(HloInstruction* loop) {
  HloComputation* computation = loop->parent();
  HloInstruction* init = loop->mutable_operand(0);
  const HloComputation* body = loop->while_body();
  const HloInstruction* body_root = body->root_instruction();
  const HloInstruction* parameter = body->parameter_instruction(0);
  HloInstruction* copied =
      DeepCopy(computation, init, [&](HloInstruction* leaf, const ShapeIndex& index) {
        // A leaf the body passes through unchanged is only read by the loop:
        // its state can stay in the init's buffer (XLA's read-only loop
        // state), unless that is read-only data.
        if (leaf->opcode() != HloOpcode::kConstant &&
            IsPassThrough(LeafOfTupleTree(body_root, index), parameter, index)) {
          return leaf;
        }
        return AddCopy(computation, leaf);
      });
  HMO_RETURN_IF_ERROR(loop->ReplaceOperandWith(0, copied));
  // The original init tuple is dead when only the loop used it.
  if (init->opcode() == HloOpcode::kTuple && init->user_count() == 0 && !init->IsRoot()) {
    return computation->RemoveInstruction(init);
  }
  return absl::OkStatus();
}

// Opcodes whose result shares (part of) an operand's buffer, so a reader of
// the result reads that operand's bytes.
bool IsAliasingOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kBitcast:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kCall:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCustomCall:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
    case HloOpcode::kDomain:
    case HloOpcode::kParameter:
      return true;
    default:
      return false;
  }
}

// `instruction` with the bitcasts it is a view through taken off.
const HloInstruction* ThroughBitcasts(const HloInstruction* instruction) {
  while (instruction->opcode() == HloOpcode::kBitcast) instruction = instruction->operand(0);
  return instruction;
}

// The instructions that read leaf `i` of a flat loop state: users of the
// parameter's get-tuple-elements at index i, or of bitcasts of them (views
// of the same bytes), the root tuple, which is being rebuilt, aside. Nullopt
// when some use is not a plain read (the parameter or such an element flows
// on through another aliasing instruction, or a bitcast of it is a root
// leaf), so readers cannot be listed.
std::optional<std::vector<std::vector<HloInstruction*>>> ParameterLeafReaders(
    const HloInstruction* parameter, const HloInstruction* root, int64_t leaves) {
  std::vector<std::vector<HloInstruction*>> readers(leaves);
  for (HloInstruction* user : parameter->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return std::nullopt;
    std::vector<HloInstruction*> views = {user};
    while (!views.empty()) {
      HloInstruction* view = views.back();
      views.pop_back();
      for (HloInstruction* reader : view->users()) {
        if (reader == root && root->opcode() == HloOpcode::kTuple && view == user) continue;
        if (reader->opcode() == HloOpcode::kBitcast && reader != root) {
          views.push_back(reader);
          continue;
        }
        if (IsAliasingOpcode(reader->opcode())) return std::nullopt;
        readers[user->tuple_index()].push_back(reader);
      }
    }
  }
  return readers;
}

// Whether `from` depends on `target` through operands or control
// predecessors.
bool DependsOn(const HloInstruction* from, const HloInstruction* target) {
  std::vector<const HloInstruction*> stack = {from};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* current = stack.back();
    stack.pop_back();
    if (current == target) return true;
    if (!seen.insert(current).second) continue;
    for (const HloInstruction* operand : current->operands()) stack.push_back(operand);
    for (const HloInstruction* predecessor : current->control_predecessors()) {
      stack.push_back(predecessor);
    }
  }
  return false;
}

// Whether `instruction` writes its whole result into operand `i`'s buffer
// (an in-place pair of alias analysis: a dynamic-update-slice's base, a
// fusion rooted at one).
bool IsUpdatedInPlace(const HloInstruction& instruction, int64_t i) {
  for (const auto& [operand, output] :
       HloDataflowAnalysis::GetInPlaceInputOutputPairs(&instruction)) {
    if (operand.operand_number == i && operand.operand_index.empty() && output.empty()) return true;
  }
  return false;
}

// Whether `value`, computed in the body (not a constant) and root leaf
// `leaf` only, can be written straight into that leaf's buffer: every other
// reader of the old leaf can be ordered before it (none depends on it; in a
// scheduled body, each already comes before it: `position`), and it reads
// the old leaf itself, if at all, element by element at the same index or
// as the base of a dynamic-update-slice (which then updates it in place).
bool CanComputeInPlace(const HloInstruction& value, const HloInstruction* parameter, int64_t leaf,
                       const std::vector<HloInstruction*>& readers, int uses_as_leaf,
                       const absl::flat_hash_map<const HloInstruction*, int64_t>* position) {
  // A constant's buffer is read-only data, never loop state.
  if (uses_as_leaf != 1 || value.opcode() == HloOpcode::kConstant) return false;
  for (const HloInstruction* reader : readers) {
    if (reader == &value) continue;
    if (DependsOn(reader, &value)) return false;
    // A scheduled body keeps its order: the readers must already come first.
    if (position != nullptr && position->at(reader) > position->at(&value)) return false;
  }
  for (int64_t i = 0; i < value.operand_count(); ++i) {
    // Through a bitcast the bytes are the leaf's; at the same index of an
    // equal shape, the same bytes.
    const HloInstruction* operand = ThroughBitcasts(value.operand(i));
    const bool reads_leaf = operand->opcode() == HloOpcode::kGetTupleElement &&
                            operand->operand(0) == parameter && operand->tuple_index() == leaf;
    // A dynamic-update-slice of the leaf itself (or a fusion updating that
    // operand in place) updates it in place.
    const bool in_place_update = IsUpdatedInPlace(value, i);
    const bool same_element =
        value.IsElementwiseOnOperand(i) && value.operand(i)->shape() == value.shape();
    if (reads_leaf && !in_place_update && !same_element) return false;
  }
  return true;
}

absl::StatusOr<bool> CopyWhileBodyRoot(HloComputation* body) {
  HloInstruction* root = body->root_instruction();
  HloInstruction* parameter = body->parameter_instruction(0);
  const Shape& state = parameter->shape();
  // Precise ordering needs a flat tuple state whose leaves are only read.
  bool flat = state.IsTuple();
  for (const Shape& element : state.tuple_shapes()) flat &= !element.IsTuple();
  const int64_t leaves = flat ? static_cast<int64_t>(state.tuple_shapes().size()) : 0;
  std::optional<std::vector<std::vector<HloInstruction*>>> readers =
      flat ? ParameterLeafReaders(parameter, root, leaves) : std::nullopt;

  // Sequence positions when the body is scheduled.
  std::optional<absl::flat_hash_map<const HloInstruction*, int64_t>> position;
  const HloModule* module = body->parent();
  if (module != nullptr && module->has_schedule() &&
      module->schedule().is_computation_scheduled(body)) {
    position.emplace();
    const std::vector<HloInstruction*>& sequence = module->schedule().sequence(body).instructions();
    for (int64_t i = 0; i < static_cast<int64_t>(sequence.size()); ++i) {
      (*position)[sequence[i]] = i;
    }
  }
  // How often each instruction is a leaf of the root (a value can live in
  // one leaf's buffer only).
  absl::flat_hash_map<const HloInstruction*, int> leaf_uses;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* operand : root->operands()) ++leaf_uses[operand];
  }
  // placed: the copies that write a leaf's buffer; temporaries: the copies
  // they read from when the new value is itself loop-state data; direct:
  // values computed straight into their leaf's buffer.
  std::vector<std::pair<ShapeIndex, HloInstruction*>> placed;
  std::vector<HloInstruction*> temporaries;
  std::vector<std::pair<int64_t, HloInstruction*>> direct;
  absl::Status status;
  HloInstruction* new_root =
      DeepCopy(body, root, [&](HloInstruction* leaf, const ShapeIndex& index) {
        const HloInstruction* source = LeafOfTupleTree(root, index);
        if (IsPassThrough(source, parameter, index)) return leaf;
        // A value computed in the body is copied into place once, after
        // every reader of the leaf it overwrites. Loop-state data (another
        // leaf, or an alias of one) goes through a temporary first: two
        // leaves exchanging values would otherwise each have to be written
        // after the other is read.
        const bool computed =
            readers.has_value() && source != nullptr && !IsAliasingOpcode(source->opcode());
        if (computed && CanComputeInPlace(*leaf, parameter, index[0], (*readers)[index[0]],
                                          leaf_uses[leaf], position ? &*position : nullptr)) {
          // Order the other readers first now, so that the next leaves'
          // decisions see these edges (two values each reading the other's
          // leaf cannot both be computed in place).
          for (HloInstruction* reader : (*readers)[index[0]]) {
            if (reader != leaf && status.ok()) status = reader->AddControlDependencyTo(leaf);
          }
          direct.emplace_back(index[0], leaf);
          return leaf;
        }
        HloInstruction* from = leaf;
        if (!computed) {
          from = AddCopy(body, leaf);
          temporaries.push_back(from);
        }
        HloInstruction* copy = AddCopy(body, from);
        placed.emplace_back(index, copy);
        return copy;
      });
  HMO_RETURN_IF_ERROR(status);
  if (placed.empty() && direct.empty()) {
    // Nothing changes a leaf: drop the unused rebuild.
    if (new_root != root) HMO_RETURN_IF_ERROR(body->RemoveInstructionAndUnusedOperands(new_root));
    return false;
  }
  if (readers.has_value()) {
    // Readers listed before the copies were added, plus the temporaries
    // that read a leaf.
    for (HloInstruction* temporary : temporaries) {
      const HloInstruction* source = temporary->operand(0);
      if (source->opcode() == HloOpcode::kGetTupleElement && source->operand(0) == parameter) {
        (*readers)[source->tuple_index()].push_back(temporary);
      }
    }
    for (const auto& [index, copy] : placed) {
      for (HloInstruction* reader : (*readers)[index[0]]) {
        if (reader != copy && reader != copy->operand(0)) {
          HMO_RETURN_IF_ERROR(reader->AddControlDependencyTo(copy));
        }
      }
    }
    // Temporaries that read a leaf computed in place go before it too.
    for (const auto& [leaf, value] : direct) {
      for (HloInstruction* temporary : temporaries) {
        const HloInstruction* source = temporary->operand(0);
        if (source->opcode() == HloOpcode::kGetTupleElement && source->operand(0) == parameter &&
            source->tuple_index() == leaf) {
          HMO_RETURN_IF_ERROR(temporary->AddControlDependencyTo(value));
        }
      }
    }
  } else {
    // Readers unknown: every leaf went through a temporary; each copy into
    // place waits for every temporary.
    for (const auto& [index, copy] : placed) {
      for (HloInstruction* temporary : temporaries) {
        if (temporary != copy->operand(0)) {
          HMO_RETURN_IF_ERROR(temporary->AddControlDependencyTo(copy));
        }
      }
    }
  }
  HMO_RETURN_IF_ERROR(ReplaceRoot(body, new_root));
  return true;
}

// Whether a branch root leaf defines a buffer of its own that only this
// leaf carries out: computed in the branch (not a constant, not an alias of
// a parameter or of another value), not updating an operand in place, at one
// leaf only. Such a value can be written straight into the conditional's
// output (XLA copies only ambiguous or non-distinct branch root leaves).
bool OwnsBranchOutput(const HloInstruction& leaf,
                      const absl::flat_hash_map<const HloInstruction*, int>& leaf_uses) {
  if (leaf.opcode() == HloOpcode::kConstant || IsAliasingOpcode(leaf.opcode())) return false;
  if (!HloDataflowAnalysis::GetInPlaceInputOutputPairs(&leaf).empty()) return false;
  auto it = leaf_uses.find(&leaf);
  return it != leaf_uses.end() && it->second == 1;
}

// How often each instruction is a leaf of `root`'s tuple tree.
void CountRootLeaves(const HloInstruction* root,
                     absl::flat_hash_map<const HloInstruction*, int>& leaf_uses) {
  if (root->opcode() != HloOpcode::kTuple) {
    ++leaf_uses[root];
    return;
  }
  for (const HloInstruction* operand : root->operands()) CountRootLeaves(operand, leaf_uses);
}

enum class RootCopies { kConstants, kBranchOutputs };

// Copies `computation`'s root leaves that `which` selects; the branch root
// leaves left uncopied (OwnsBranchOutput) are appended to `uncopied`.
absl::StatusOr<bool> CopyRootLeaves(HloComputation* computation, RootCopies which,
                                    std::vector<HloInstruction*>* uncopied = nullptr) {
  HloInstruction* root = computation->root_instruction();
  absl::flat_hash_map<const HloInstruction*, int> leaf_uses;
  // A branch shared by several callers would join their outputs' buffers.
  if (computation->caller_instructions().size() == 1) CountRootLeaves(root, leaf_uses);
  bool copied_any = false;
  HloInstruction* new_root =
      DeepCopy(computation, root, [&](HloInstruction* leaf, const ShapeIndex&) {
        if (which == RootCopies::kConstants && leaf->opcode() != HloOpcode::kConstant) {
          return leaf;
        }
        if (which == RootCopies::kBranchOutputs && OwnsBranchOutput(*leaf, leaf_uses)) {
          uncopied->push_back(leaf);
          return leaf;
        }
        copied_any = true;
        return AddCopy(computation, leaf);
      });
  if (!copied_any) {
    if (new_root != root) {
      HMO_RETURN_IF_ERROR(computation->RemoveInstructionAndUnusedOperands(new_root));
    }
    return false;
  }
  HMO_RETURN_IF_ERROR(ReplaceRoot(computation, new_root));
  return true;
}

// Copies after all the uncopied branch root leaves whose buffer also holds
// a value from outside their conditional (a donated entry parameter the
// output is aliased with, loop state): the branch would write bytes it may
// still read. Returns whether it added a copy.
absl::StatusOr<bool> CopySharedBranchOutputs(HloModule& module,
                                             const std::vector<HloInstruction*>& uncopied) {
  if (uncopied.empty()) return false;
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloAliasAnalysis> analysis, HloAliasAnalysis::Run(&module));
  std::vector<HloInstruction*> shared;
  for (HloInstruction* leaf : uncopied) {
    const HloInstruction* conditional = leaf->parent()->caller_instructions().front();
    const std::vector<HloComputation*>& branches = conditional->branch_computations();
    bool foreign = false;
    for (const HloBuffer* buffer : analysis->ComputeBuffersAt(leaf)) {
      for (const HloValue* value : buffer->values()) {
        const HloInstruction* definer = value->defining_instruction();
        foreign |= definer != conditional &&
                   std::find(branches.begin(), branches.end(), definer->parent()) == branches.end();
      }
    }
    if (foreign) shared.push_back(leaf);
  }
  for (HloInstruction* leaf : shared) {
    HloComputation* branch = leaf->parent();
    HloInstruction* copy = AddCopy(branch, leaf);
    if (branch->root_instruction() == leaf) {
      branch->set_root_instruction(copy);
      continue;
    }
    // The root is a tuple tree that holds the leaf once (OwnsBranchOutput).
    std::vector<HloInstruction*> stack = {branch->root_instruction()};
    while (!stack.empty()) {
      HloInstruction* tuple = stack.back();
      stack.pop_back();
      for (int64_t i = 0; i < tuple->operand_count(); ++i) {
        HloInstruction* operand = tuple->mutable_operand(i);
        if (operand == leaf) {
          HMO_RETURN_IF_ERROR(tuple->ReplaceOperandWith(i, copy));
        } else if (operand->opcode() == HloOpcode::kTuple) {
          stack.push_back(operand);
        }
      }
    }
  }
  return !shared.empty();
}

}  // namespace

absl::StatusOr<bool> CopyInsertion::AddCopies(HloModule& module) {
  bool changed = false;
  // The copies already there (XLA's own, in an optimized dump) are not ours
  // to elide.
  absl::flat_hash_set<const HloInstruction*> existing_copies;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kCopy) existing_copies.insert(instruction);
    }
  }
  // Collect first: the loops below add instructions.
  std::vector<HloInstruction*> loops;
  std::vector<HloInstruction*> conditionals;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kWhile) loops.push_back(instruction);
      if (instruction->opcode() == HloOpcode::kConditional) conditionals.push_back(instruction);
    }
  }
  for (HloInstruction* loop : loops) {
    HMO_RETURN_IF_ERROR(CopyWhileInit(loop));
    HMO_ASSIGN_OR_RETURN(bool body_changed, CopyWhileBodyRoot(loop->while_body()));
    (void)body_changed;
    changed = true;
  }
  std::vector<HloInstruction*> uncopied_branch_outputs;
  for (HloInstruction* conditional : conditionals) {
    for (HloComputation* branch : conditional->branch_computations()) {
      HMO_ASSIGN_OR_RETURN(bool branch_changed, CopyRootLeaves(branch, RootCopies::kBranchOutputs,
                                                               &uncopied_branch_outputs));
      changed |= branch_changed;
    }
  }
  HMO_ASSIGN_OR_RETURN(bool entry_changed,
                       CopyRootLeaves(module.entry_computation(), RootCopies::kConstants));
  changed |= entry_changed;
  HMO_ASSIGN_OR_RETURN(bool shared_changed,
                       CopySharedBranchOutputs(module, uncopied_branch_outputs));
  changed |= shared_changed;
  if (changed && module.has_schedule()) {
    HMO_RETURN_IF_ERROR(module.schedule().Update());
    // Copies the order makes unnecessary go again (copy_elision.h): a loop
    // whose init is dead after it updates the init's buffer in place.
    std::vector<HloInstruction*> added;
    for (HloComputation* computation : module.MakeNonfusionComputations()) {
      for (HloInstruction* instruction : computation->instructions()) {
        if (instruction->opcode() == HloOpcode::kCopy && !existing_copies.contains(instruction)) {
          added.push_back(instruction);
        }
      }
    }
    HMO_RETURN_IF_ERROR(ElideCopies(module, added).status());
  }
  return changed;
}

absl::StatusOr<bool> CopyInsertion::Run(HloModule& module, PassContext& context) {
  (void)context;
  return AddCopies(module);
}

}  // namespace hmo
