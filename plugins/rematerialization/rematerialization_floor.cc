#include "rematerialization_floor.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "hmo/analysis/call_graph.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"
#include "loop_state_offload.h"
#include "value_buffers.h"

namespace hmo {
namespace {

// What a buffer is to the bound.
enum class BufferRole {
  kUncounted,   // an argument's, a constant's, a tuple, on the host, or a copy that may go
  kTemporary,   // in the temp arena, or in a free output buffer
  kOutput,      // an output's (or donated argument's) buffer: may hold one temporary
  kTupleTable,  // a tuple's pointer table: an allocation of its own, for the whole run
};

// A computation whose values buffer assignment places in the module's
// allocations: the entry and what control flow runs (not fusions, nor the
// thread-local computations of reduce, sort, map ...).
bool RunsSequentially(const HloComputation& computation) {
  if (computation.IsEntryComputation()) return true;
  const std::vector<HloInstruction*>& callers = computation.caller_instructions();
  return !callers.empty() && std::all_of(callers.begin(), callers.end(), [](const auto* caller) {
    return GetInstructionCallContext(caller->opcode()) == CallContext::kControlFlow;
  });
}

struct BufferFacts {
  BufferRole role = BufferRole::kUncounted;
  int64_t bytes = 0;
};

bool IsLayoutPreservingCopy(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kCopy &&
         instruction.shape() == instruction.operand(0)->shape();
}

std::vector<BufferFacts> ClassifyBuffers(const HloModule& module, const HloAliasAnalysis& aliases) {
  std::vector<BufferFacts> facts(aliases.buffers().size());
  for (const HloBuffer& buffer : aliases.buffers()) {
    BufferFacts& fact = facts[buffer.id()];
    bool device_array = true;
    bool tuple = false;
    bool argument = false;
    bool may_go = false;
    bool sequential = true;
    for (const HloValue* value : buffer.values()) {
      const HloInstruction& instruction = *value->defining_instruction();
      const Shape& shape = value->shape();
      device_array &= shape.IsArray() && shape.memory_space() != Layout::kHostMemorySpace;
      tuple |= shape.IsTuple();
      argument |= instruction.opcode() == HloOpcode::kParameter &&
                  instruction.parent() == module.entry_computation();
      may_go |= instruction.opcode() == HloOpcode::kConstant || IsLayoutPreservingCopy(instruction);
      sequential &= RunsSequentially(*instruction.parent());
      fact.bytes = std::max(fact.bytes, ShapeUtil::ByteSizeOf(shape));
    }
    if (!sequential) continue;
    if (tuple) {
      if (!argument && !may_go && !aliases.BufferLivesOut(buffer))
        fact.role = BufferRole::kTupleTable;
      continue;
    }
    if (!device_array) continue;
    if (aliases.BufferLivesOut(buffer)) {
      fact.role = BufferRole::kOutput;
    } else if (!argument && !may_go) {
      fact.role = BufferRole::kTemporary;
    }
  }
  // A loop's stack the fit may keep on the host a slice at a time: what
  // reads or writes it then sees a slice (loop_state_offload.h).
  for (const HloComputation* computation : module.computations()) {
    if (!RunsSequentially(*computation)) continue;
    for (const HloInstruction* loop : computation->instructions()) {
      if (loop->opcode() != HloOpcode::kWhile || !loop->shape().IsTuple()) continue;
      for (int64_t index = 0; index < loop->shape().tuple_shapes_size(); ++index) {
        if (!IsSlicedLoopState(*loop, index)) continue;
        for (const HloBuffer* buffer : aliases.ComputeBuffersAt(loop, {index})) {
          facts[buffer->id()].role = BufferRole::kUncounted;
        }
      }
    }
  }
  return facts;
}

// The temporaries one instruction reads and writes, and the ways they can
// lie in memory: each a list of the separate pieces of memory they need.
struct InstructionTemporaries {
  const HloInstruction* instruction = nullptr;
  std::vector<std::vector<int64_t>> layouts;
  int64_t least_bytes = 0;  // the smallest layout's total
  // Output buffers holding what it reads (ids): taken while it runs.
  std::vector<int64_t> taken_buffers;
};

int64_t Total(const std::vector<int64_t>& pieces) {
  return std::accumulate(pieces.begin(), pieces.end(), int64_t{0});
}

// Whether `instruction`'s result at `index` may be written over its operand
// `operand` (XLA's CanShareOperandBufferWithUser): only then can the two lie
// in one buffer while it runs.
bool MayComputeInPlace(const HloDataflowAnalysis& dataflow, const HloInstruction& operand,
                       const HloInstruction& instruction, const ShapeIndex& index) {
  // The analysis takes mutable pointers but only reads them.
  return dataflow.CanShareOperandBufferWithUser(const_cast<HloInstruction*>(&operand), {},
                                                const_cast<HloInstruction*>(&instruction), index);
}

InstructionTemporaries TemporariesOf(const HloInstruction& instruction,
                                     const HloAliasAnalysis& aliases,
                                     const std::vector<BufferFacts>& facts) {
  const HloDataflowAnalysis& dataflow = aliases.dataflow_analysis();
  absl::flat_hash_set<int64_t> seen;
  std::vector<int64_t> operands;
  // The operand instruction each entry of `operands` is read through.
  std::vector<const HloInstruction*> operand_readers;
  std::vector<int64_t> taken;
  for (const HloInstruction* read : instruction.operands()) {
    if (!read->shape().IsArray()) continue;
    // A copy that may go is its source's data: where the source lies, or
    // in the copy's buffer, which the source's could hold instead.
    const HloInstruction* operand = IsLayoutPreservingCopy(*read) ? read->operand(0) : read;
    for (const HloBuffer* buffer : aliases.ComputeBuffersAt(operand, {})) {
      const BufferFacts& fact = facts[buffer->id()];
      if (fact.role == BufferRole::kOutput) taken.push_back(buffer->id());
      if (fact.role == BufferRole::kTemporary && seen.insert(buffer->id()).second) {
        operands.push_back(fact.bytes);
        operand_readers.push_back(read);
      }
    }
  }
  // Results: the array, or the elements of a multi-output fusion or of a
  // variadic collective (other tuple results forward buffers their operands
  // hold, or a loop's state).
  std::vector<ShapeIndex> indices;
  if (instruction.shape().IsArray()) {
    indices.push_back({});
  } else if (instruction.opcode() == HloOpcode::kFusion ||
             IsCollectiveOpcode(instruction.opcode())) {
    for (const ShapeUtil::IndexedShape& leaf : ShapeUtil::GetLeafShapes(instruction.shape())) {
      if (leaf.shape.IsArray()) indices.push_back(leaf.index);
    }
  }
  const auto in_place_with_some_operand = [&](const ShapeIndex& index) {
    return absl::c_any_of(instruction.operands(), [&](const HloInstruction* operand) {
      return operand->shape().IsArray() &&
             MayComputeInPlace(dataflow, *operand, instruction, index);
    });
  };
  std::vector<int64_t> results;
  std::vector<ShapeIndex> result_indices;
  for (const ShapeIndex& index : indices) {
    for (const HloBuffer* buffer : aliases.ComputeBuffersAt(&instruction, index)) {
      const BufferFacts& fact = facts[buffer->id()];
      if (fact.role == BufferRole::kTemporary && seen.insert(buffer->id()).second) {
        results.push_back(fact.bytes);
        result_indices.push_back(index);
      }
      // An output's buffer the result is written to holds it while the
      // instruction runs, and no operand besides, unless one is updated in
      // place.
      if (fact.role == BufferRole::kOutput && !in_place_with_some_operand(index)) {
        taken.push_back(buffer->id());
      }
    }
  }

  InstructionTemporaries temporaries{&instruction, {}, 0, std::move(taken)};
  if (results.size() > 1 && instruction.opcode() == HloOpcode::kFusion) {
    // Each result may take an operand's place: at least the larger side.
    temporaries.layouts.push_back(Total(operands) >= Total(results) ? operands : results);
  } else if (results.size() > 1) {
    // A variadic collective: each result apart from the operands, unless it
    // may be computed over one (a donated all-reduce-start).
    std::vector<int64_t> pieces = operands;
    std::vector<bool> shared(operands.size(), false);
    for (size_t k = 0; k < results.size(); ++k) {
      bool placed = false;
      for (size_t i = 0; i < operands.size() && !placed; ++i) {
        if (shared[i] ||
            !MayComputeInPlace(dataflow, *operand_readers[i], instruction, result_indices[k]))
          continue;
        pieces[i] = std::max(pieces[i], results[k]);
        shared[i] = placed = true;
      }
      if (!placed) pieces.push_back(results[k]);
    }
    temporaries.layouts.push_back(std::move(pieces));
  } else {
    std::vector<int64_t> apart = operands;
    apart.insert(apart.end(), results.begin(), results.end());
    temporaries.layouts.push_back(apart);
    if (results.size() == 1) {
      // Or in the place of one operand it may be computed over (one that
      // dies here).
      for (size_t i = 0; i < operands.size(); ++i) {
        if (!MayComputeInPlace(dataflow, *operand_readers[i], instruction, result_indices[0])) {
          continue;
        }
        std::vector<int64_t> shared = operands;
        shared[i] = std::max(shared[i], results[0]);
        temporaries.layouts.push_back(std::move(shared));
      }
    }
  }
  temporaries.least_bytes = Total(temporaries.layouts[0]);
  for (const std::vector<int64_t>& layout : temporaries.layouts) {
    temporaries.least_bytes = std::min(temporaries.least_bytes, Total(layout));
  }
  return temporaries;
}

// The most of `pieces` free output buffers can hold, one piece per buffer
// that is at least its size: the largest pieces first, each in the smallest
// buffer it fits (optimal for this nested fit).
int64_t MostHeldByFreeBuffers(std::vector<int64_t> pieces, std::multiset<int64_t> free) {
  std::sort(pieces.rbegin(), pieces.rend());
  int64_t held = 0;
  for (int64_t piece : pieces) {
    auto buffer = free.lower_bound(piece);
    if (buffer == free.end()) continue;
    held += piece;
    free.erase(buffer);
  }
  return held;
}

// Which output buffers are surely taken while an entry instruction runs,
// from data dependence alone.
class OutputBufferOccupancy {
 public:
  OutputBufferOccupancy(const HloModule& module, const HloAliasAnalysis& aliases,
                        const std::vector<BufferFacts>& facts)
      : entry_(*module.entry_computation()), aliases_(aliases), facts_(facts) {
    for (const HloInstruction* instruction : entry_.instructions()) {
      position_.emplace(instruction, static_cast<int64_t>(position_.size()));
    }
    // A donated argument updated by an instruction that reads it holds the
    // argument until then and the output from then: never free.
    for (const HloBuffer& buffer : aliases_.buffers()) {
      if (facts_[buffer.id()].role != BufferRole::kOutput) continue;
      for (const HloValue* argument : buffer.values()) {
        const HloInstruction* parameter = argument->defining_instruction();
        if (parameter->opcode() != HloOpcode::kParameter || parameter->parent() != &entry_)
          continue;
        for (const HloValue* output : buffer.values()) {
          const HloInstruction* writer = output->defining_instruction();
          if (output->live_out_of_module() && writer != parameter &&
              absl::c_linear_search(parameter->users(), writer)) {
            always_taken_.insert(buffer.id());
          }
        }
      }
    }
  }

  // The entry instruction that runs while `instruction` does: itself, or the
  // one caller chain's entry instruction; null when several callers.
  const HloInstruction* EntryLevel(const HloInstruction* instruction) const {
    while (instruction->parent() != &entry_) {
      const std::vector<HloInstruction*>& callers = instruction->parent()->caller_instructions();
      if (callers.size() != 1) return nullptr;
      instruction = callers[0];
    }
    return instruction;
  }

  // The output buffers (ids) that may be free while `instruction` runs:
  // all but those surely taken. `at` is the entry-level instruction (null
  // when there is none: then all may be); `inside` says `instruction` runs
  // within it (a loop's body), where only what comes strictly before and
  // after `at` is sure.
  std::vector<int64_t> FreeBuffers(const HloInstruction* at, bool inside) const {
    std::vector<int64_t> free;
    if (at == nullptr) {
      for (const HloBuffer& buffer : aliases_.buffers()) {
        if (facts_[buffer.id()].role == BufferRole::kOutput &&
            !always_taken_.contains(buffer.id())) {
          free.push_back(buffer.id());
        }
      }
      return free;
    }
    const std::vector<char> before = Reach(at, /*forward=*/false);
    const std::vector<char> after = Reach(at, /*forward=*/true);
    const auto is_before = [&](const HloInstruction* instruction) {
      if (instruction->opcode() == HloOpcode::kParameter && instruction->parent() == &entry_) {
        return true;
      }
      // Not `at` itself: its result's buffer may hold an operand that dies
      // there (the result takes its place).
      return before[position_.at(instruction)] != 0;
    };
    const auto is_after = [&](const HloInstruction* instruction) {
      return after[position_.at(instruction)] != 0 || (!inside && instruction == at);
    };
    for (const HloBuffer& buffer : aliases_.buffers()) {
      const BufferFacts& fact = facts_[buffer.id()];
      if (fact.role != BufferRole::kOutput || always_taken_.contains(buffer.id())) continue;
      bool taken = false;
      for (const HloValue* value : buffer.values()) {
        // Only arguments and outputs: a value in between could move to
        // the host and back, leaving the buffer free meanwhile.
        const HloInstruction* definition = value->defining_instruction();
        const bool argument = definition->opcode() == HloOpcode::kParameter;
        if (definition->parent() != &entry_ || !(argument || value->live_out_of_module()) ||
            !is_before(definition)) {
          continue;
        }
        if (value->live_out_of_module()) {
          taken = true;
          break;
        }
        for (const HloUse& use : value->GetUses()) {
          const HloInstruction* reader = EntryLevel(use.instruction);
          if (reader != nullptr && is_after(reader)) {
            taken = true;
            break;
          }
        }
        if (taken) break;
      }
      if (!taken) free.push_back(buffer.id());
    }
    return free;
  }

 private:
  // Entry instructions strictly before (or after) `from` by data dependence.
  std::vector<char> Reach(const HloInstruction* from, bool forward) const {
    std::vector<char> reached(position_.size(), 0);
    std::vector<const HloInstruction*> stack = {from};
    while (!stack.empty()) {
      const HloInstruction* instruction = stack.back();
      stack.pop_back();
      const auto visit = [&](const HloInstruction* next) {
        char& mark = reached[position_.at(next)];
        if (mark == 0) {
          mark = 1;
          stack.push_back(next);
        }
      };
      if (forward) {
        for (const HloInstruction* user : instruction->users()) visit(user);
      } else {
        for (const HloInstruction* operand : instruction->operands()) visit(operand);
      }
    }
    return reached;
  }

  const HloComputation& entry_;
  const HloAliasAnalysis& aliases_;
  const std::vector<BufferFacts>& facts_;
  absl::flat_hash_map<const HloInstruction*, int64_t> position_;
  absl::flat_hash_set<int64_t> always_taken_;
};

}  // namespace

absl::StatusOr<RematerializationFloor> ComputeRematerializationFloor(
    const HloModule& module, const CompiledMemoryStats& stats, int64_t max_instructions) {
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloAliasAnalysis> aliases, HloAliasAnalysis::Run(&module));
  const std::vector<BufferFacts> facts = ClassifyBuffers(module, *aliases);
  int64_t tuple_tables = 0;
  for (const BufferFacts& fact : facts) {
    if (fact.role == BufferRole::kTupleTable) tuple_tables += fact.bytes;
  }
  const int64_t arguments_and_outputs =
      stats.argument_size_in_bytes + stats.output_size_in_bytes - stats.alias_size_in_bytes;
  const int64_t whole_run = arguments_and_outputs + tuple_tables;
  const std::string held =
      tuple_tables == 0
          ? fmt::format("the arguments and outputs ({} B)", arguments_and_outputs)
          : fmt::format("the arguments and outputs ({} B) and the tuples' pointer tables ({} B)",
                        arguments_and_outputs, tuple_tables);
  RematerializationFloor floor{whole_run, "", held + ", held for the whole run"};

  std::vector<InstructionTemporaries> candidates;
  for (const HloComputation* computation : module.computations()) {
    if (!RunsSequentially(*computation)) continue;
    for (const HloInstruction* instruction : computation->instructions()) {
      // A copy that may go; a tuple, bitcast or get-tuple-element reads
      // nothing (a tuple's elements could be a loop's state on the host).
      if (IsLayoutPreservingCopy(*instruction) || AliasesAnotherBuffer(*instruction)) continue;
      InstructionTemporaries temporaries = TemporariesOf(*instruction, *aliases, facts);
      if (temporaries.least_bytes > 0) candidates.push_back(std::move(temporaries));
    }
  }
  // Largest first: the free output buffers only lower a candidate's bound,
  // so the search stops once the best bound reaches the next one's total.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const InstructionTemporaries& a, const InstructionTemporaries& b) {
                     return a.least_bytes > b.least_bytes;
                   });
  const OutputBufferOccupancy occupancy(module, *aliases, facts);
  int64_t checked = 0;
  for (const InstructionTemporaries& candidate : candidates) {
    if (whole_run + candidate.least_bytes <= floor.bytes || checked++ >= max_instructions) break;
    const HloInstruction* at = occupancy.EntryLevel(candidate.instruction);
    std::multiset<int64_t> free;
    for (int64_t id : occupancy.FreeBuffers(at, /*inside=*/at != candidate.instruction)) {
      if (!absl::c_linear_search(candidate.taken_buffers, id)) free.insert(facts[id].bytes);
    }
    int64_t least = -1;
    int64_t least_total = 0;
    for (const std::vector<int64_t>& layout : candidate.layouts) {
      const int64_t total = Total(layout);
      const int64_t needed = total - MostHeldByFreeBuffers(layout, free);
      if (least < 0 || needed < least) {
        least = needed;
        least_total = total;
      }
    }
    if (whole_run + least > floor.bytes) {
      floor.bytes = whole_run + least;
      floor.instruction = candidate.instruction->name();
      floor.reason = fmt::format(
          "{}, plus the {} B of temporaries {} reads and writes, less {} B that output buffers "
          "free then could hold",
          held, least_total, floor.instruction, least_total - least);
    }
  }
  return floor;
}

absl::StatusOr<int64_t> ArenaPaddingOfArgumentsAndOutputs(const HloModule& module,
                                                          const TargetMemoryModel& model) {
  HMO_ASSIGN_OR_RETURN(const TargetMemoryPlan plan, PlanTargetMemory(module, model));
  const int64_t alignment = std::max<int64_t>(1, model.assignment.alignment);
  int64_t padding = 0;
  for (const BufferAllocation& allocation : plan.assignment->Allocations()) {
    if (plan.arenas.placements[allocation.index()].arena != ArenaLayout::kDeviceArena) continue;
    if (!allocation.is_entry_computation_parameter() && !allocation.maybe_live_out()) continue;
    const int64_t size = allocation.size();
    padding += (size + alignment - 1) / alignment * alignment - size;
  }
  return padding;
}

}  // namespace hmo
