#include "hmo/analysis/buffer_plan_checker.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/custom_call_targets.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo {
namespace {

using Slice = BufferAssignment::Slice;

// What a byte holds: an HloValue id (>= 0), or a synthetic token (< 0) for
// what a conditional leaves behind.
using Token = int64_t;

struct Segment {
  int64_t end = 0;
  Token token = 0;
  const HloInstruction* writer = nullptr;  // null: there before the first instruction
  bool operator==(const Segment& o) const {
    return end == o.end && token == o.token && writer == o.writer;
  }
};

// Byte ranges of one allocation by start offset; ranges never overlap.
using AllocationTags = std::map<int64_t, Segment>;

struct State {
  absl::flat_hash_map<BufferAllocation::Index, AllocationTags> tags;
  // The value that reached each position in the run so far.
  absl::flat_hash_map<HloPosition, Token> flow;
};

// Custom calls that pass their operand's value on: the same bytes when both
// sides share a slice.
bool IsIdentityMove(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kCustomCall &&
         IsValuePassingCustomCallTarget(instruction.custom_call_target());
}

std::vector<ShapeIndex> ArrayLeaves(const Shape& shape) {
  std::vector<ShapeIndex> leaves;
  ShapeUtil::ForEachLeafShape(shape, [&](const Shape& leaf, const ShapeIndex& index) {
    if (leaf.IsArray()) leaves.push_back(index);
  });
  return leaves;
}

ShapeIndex Prepend(int64_t first, const ShapeIndex& rest) {
  ShapeIndex index = {first};
  index.insert(index.end(), rest.begin(), rest.end());
  return index;
}

HloPosition Position(const HloInstruction* instruction, const ShapeIndex& index) {
  return HloPosition{const_cast<HloInstruction*>(instruction), index};
}

class PlanChecker {
 public:
  explicit PlanChecker(const BufferAssignment& assignment)
      : assignment_(assignment), dataflow_(assignment.dataflow_analysis()) {}

  absl::Status Run() {
    const HloComputation* entry = assignment_.module().entry_computation();
    if (entry == nullptr) return absl::OkStatus();
    for (const HloInstruction* parameter : entry->parameter_instructions()) {
      for (const ShapeIndex& index : ArrayLeaves(parameter->shape())) {
        if (!dataflow_.ValueIsDefinedAt(parameter, index)) continue;
        const Token token = dataflow_.GetValueDefinedAt(parameter, index).id();
        state_.flow[Position(parameter, index)] = token;
        HMO_ASSIGN_OR_RETURN(std::optional<Slice> slice, SliceAt(parameter, index));
        if (slice) Tag(*slice, token, nullptr);
      }
    }
    for (const BufferAllocation& allocation : assignment_.Allocations()) {
      if (!allocation.is_constant()) continue;
      for (const auto& [value, place] : allocation.SortedAssignedBuffers()) {
        Tag(Slice{allocation.index(), place.offset, place.size}, value->id(), nullptr);
      }
    }
    HMO_RETURN_IF_ERROR(Execute(*entry));
    const HloInstruction* root = entry->root_instruction();
    for (const ShapeIndex& index : ArrayLeaves(root->shape())) {
      HMO_ASSIGN_OR_RETURN(std::optional<Slice> slice, SliceAt(root, index));
      if (!slice) continue;
      HMO_ASSIGN_OR_RETURN(Token token, FlowAt(root, index));
      HMO_RETURN_IF_ERROR(
          CheckHolds(*slice, token, "the entry result " + ShapeIndexToString(index) + " (read after the last instruction)"));
    }
    return absl::OkStatus();
  }

 private:
  absl::StatusOr<std::optional<Slice>> SliceAt(const HloInstruction* instruction, const ShapeIndex& index) const {
    const std::set<Slice> slices = assignment_.GetAllSlices(instruction, index);
    if (slices.empty()) return std::optional<Slice>();
    if (slices.size() > 1) {
      return absl::FailedPreconditionError(absl::StrCat("buffer plan: ", instruction->name(), " at ",
                                                        ShapeIndexToString(index), " has ", slices.size(),
                                                        " slices; an executable needs one"));
    }
    if (slices.begin()->size == 0) return std::optional<Slice>();
    return std::optional<Slice>(*slices.begin());
  }

  absl::StatusOr<Token> FlowAt(const HloInstruction* instruction, const ShapeIndex& index) const {
    auto it = state_.flow.find(Position(instruction, index));
    if (it != state_.flow.end()) return it->second;
    const HloValueSet& set = dataflow_.GetValueSet(instruction, index);
    if (set.values().size() == 1) return set.values()[0]->id();
    return absl::FailedPreconditionError(absl::StrCat("buffer plan: no value reached ", instruction->name(), " at ",
                                                      ShapeIndexToString(index), " before it was read"));
  }

  std::string Describe(Token token) const {
    if (token < 0) return synthetic_[static_cast<size_t>(-token - 1)];
    const HloValue& value = dataflow_.GetValue(token);
    return absl::StrCat("value ", value.ToShortString(), " (defined by ", value.defining_instruction()->name(),
                        ")");
  }

  Token NewSynthetic(std::string description) {
    synthetic_.push_back(std::move(description));
    return -static_cast<Token>(synthetic_.size());
  }

  static std::string Range(const Slice& slice, int64_t begin, int64_t end) {
    return absl::StrCat("bytes [", begin, ", ", end, ") of allocation ", slice.index);
  }

  // `slice` must hold `token` in every byte.
  absl::Status CheckHolds(const Slice& slice, Token token, const std::string& reader) const {
    const int64_t begin = slice.offset;
    const int64_t end = slice.offset + slice.size;
    auto found = state_.tags.find(slice.index);
    int64_t at = begin;
    if (found != state_.tags.end()) {
      const AllocationTags& tags = found->second;
      auto it = tags.upper_bound(begin);
      if (it != tags.begin()) --it;
      for (; it != tags.end() && it->first < end; ++it) {
        if (it->second.end <= at) continue;
        if (it->first > at) break;  // a gap before this segment
        if (it->second.token != token) {
          return absl::FailedPreconditionError(absl::StrCat(
              "buffer plan: ", reader, " reads ", Describe(token), " from ",
              Range(slice, std::max(at, it->first), std::min(end, it->second.end)), ", but ",
              it->second.writer == nullptr ? std::string("nothing")
                                           : "instruction " + it->second.writer->name(),
              " wrote ", Describe(it->second.token), " there after it was defined"));
        }
        at = it->second.end;
        if (at >= end) return absl::OkStatus();
      }
    }
    if (at >= end) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat("buffer plan: ", reader, " reads ", Describe(token), " from ",
                                                      Range(slice, at, end), ", which nothing wrote"));
  }

  // Tags [offset, offset + size) of the slice's allocation.
  void Tag(const Slice& slice, Token token, const HloInstruction* writer) {
    AllocationTags& tags = state_.tags[slice.index];
    const int64_t begin = slice.offset;
    const int64_t end = slice.offset + slice.size;
    auto it = tags.upper_bound(begin);
    if (it != tags.begin()) {
      auto previous = std::prev(it);
      if (previous->second.end > begin) {
        const Segment covering = previous->second;
        if (covering.end > end) tags[end] = covering;  // the part after the new range
        if (previous->first < begin) {
          previous->second.end = begin;
        } else {
          tags.erase(previous);
        }
      }
    }
    it = tags.lower_bound(begin);
    while (it != tags.end() && it->first < end) {
      if (it->second.end > end) {
        Segment tail = it->second;
        tags.erase(it);
        tags[end] = tail;
        break;
      }
      it = tags.erase(it);
    }
    tags[begin] = Segment{end, token, writer};
  }

  absl::Status Write(const Slice& slice, Token token, const HloInstruction& writer) {
    const BufferAllocation& allocation = assignment_.GetAllocation(slice.index);
    if (allocation.is_readonly()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "buffer plan: instruction ", writer.name(), " writes ", Describe(token), " into ",
          Range(slice, slice.offset, slice.offset + slice.size), ", which is read-only (",
          allocation.is_constant() ? "a constant" : "a parameter the caller keeps", ")"));
    }
    Tag(slice, token, &writer);
    return absl::OkStatus();
  }

  // The value at (src, src_index) flows to (dst, dst_index); `mover` copies
  // it when the two slices differ.
  absl::Status Forward(const HloInstruction* dst, const ShapeIndex& dst_index, const HloInstruction* src,
                       const ShapeIndex& src_index, const HloInstruction& mover) {
    HMO_ASSIGN_OR_RETURN(Token token, FlowAt(src, src_index));
    state_.flow[Position(dst, dst_index)] = token;
    const Shape& dst_shape = ShapeUtil::GetSubshape(dst->shape(), dst_index);
    if (!dst_shape.IsArray()) return absl::OkStatus();
    // Moves copy bytes as they are: both sides must order them alike.
    const Shape& src_shape = ShapeUtil::GetSubshape(src->shape(), src_index);
    if (mover.opcode() != HloOpcode::kBitcast && src_shape.IsArray() && ShapeUtil::ElementsIn(dst_shape) > 1 &&
        ShapeUtil::LayoutOrDefault(src_shape).minor_to_major() != ShapeUtil::LayoutOrDefault(dst_shape).minor_to_major()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "buffer plan: ", mover.name(), " moves ", Describe(token), " from ", src->name(), " ",
          ShapeIndexToString(src_index), " (", src_shape.ToString(true), ") to ", dst->name(), " ",
          ShapeIndexToString(dst_index), " (", dst_shape.ToString(true), "): the layouts differ"));
    }
    HMO_ASSIGN_OR_RETURN(std::optional<Slice> from, SliceAt(src, src_index));
    HMO_ASSIGN_OR_RETURN(std::optional<Slice> to, SliceAt(dst, dst_index));
    if (!to || (from && *from == *to)) return absl::OkStatus();
    if (from) {
      HMO_RETURN_IF_ERROR(CheckHolds(*from, token, "the copy of " + mover.name() + " " + ShapeIndexToString(dst_index)));
    }
    return Write(*to, token, mover);
  }

  // Every leaf (arrays and tuples) of `dst` from `src` at `src_prefix` + leaf.
  absl::Status ForwardAll(const HloInstruction* dst, const HloInstruction* src, const ShapeIndex& src_prefix,
                          const HloInstruction& mover) {
    absl::Status status;
    ShapeUtil::ForEachSubshape(dst->shape(), [&](const Shape&, const ShapeIndex& index) {
      if (!status.ok()) return;
      ShapeIndex from = src_prefix;
      from.insert(from.end(), index.begin(), index.end());
      status = Forward(dst, index, src, from, mover);
    });
    return status;
  }

  absl::Status Execute(const HloComputation& computation) {
    const HloSchedule& schedule = assignment_.schedule();
    const std::vector<HloInstruction*> sequence = schedule.is_computation_scheduled(&computation)
                                                      ? schedule.sequence(&computation).instructions()
                                                      : computation.MakeInstructionPostOrder();
    for (const HloInstruction* instruction : sequence) HMO_RETURN_IF_ERROR(ExecuteInstruction(*instruction));
    return absl::OkStatus();
  }

  absl::Status ExecuteInstruction(const HloInstruction& instruction) {
    switch (instruction.opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kAfterAll:
        return absl::OkStatus();
      case HloOpcode::kConstant: {
        if (!instruction.shape().IsArray()) return absl::OkStatus();
        const Token token = dataflow_.GetValueDefinedAt(&instruction, {}).id();
        state_.flow[Position(&instruction, {})] = token;
        HMO_ASSIGN_OR_RETURN(std::optional<Slice> slice, SliceAt(&instruction, {}));
        if (!slice || assignment_.GetAllocation(slice->index).is_constant()) return absl::OkStatus();
        return Write(*slice, token, instruction);
      }
      case HloOpcode::kTuple:
        for (int64_t i = 0; i < instruction.operand_count(); ++i) {
          absl::Status status;
          ShapeUtil::ForEachSubshape(instruction.operand(i)->shape(), [&](const Shape&, const ShapeIndex& index) {
            if (status.ok()) status = Forward(&instruction, Prepend(i, index), instruction.operand(i), index, instruction);
          });
          HMO_RETURN_IF_ERROR(status);
        }
        return absl::OkStatus();
      case HloOpcode::kGetTupleElement:
        return ForwardAll(&instruction, instruction.operand(0), {instruction.tuple_index()}, instruction);
      case HloOpcode::kBitcast:
        if (dataflow_.ValueIsDefinedAt(&instruction, {})) break;
        return ForwardAll(&instruction, instruction.operand(0), {}, instruction);
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kDomain:
      case HloOpcode::kAddDependency:
        return ForwardAll(&instruction, instruction.operand(0), {}, instruction);
      case HloOpcode::kCopy:
        if (instruction.shape().IsArray()) break;
        return ForwardAll(&instruction, instruction.operand(0), {}, instruction);
      case HloOpcode::kCopyStart: {
        HMO_RETURN_IF_ERROR(ExecuteKernel(instruction));
        HMO_RETURN_IF_ERROR(Forward(&instruction, {1}, instruction.operand(0), {}, instruction));
        return absl::OkStatus();
      }
      case HloOpcode::kCopyDone: {
        const HloInstruction* start = instruction.operand(0);
        HMO_RETURN_IF_ERROR(ForwardAll(&instruction, start, {0}, instruction));
        // The source is read until the copy is done.
        HMO_ASSIGN_OR_RETURN(std::optional<Slice> source, SliceAt(start, {1}));
        if (!source) return absl::OkStatus();
        HMO_ASSIGN_OR_RETURN(Token token, FlowAt(start, {1}));
        return CheckHolds(*source, token, instruction.name() + " (the source of " + start->name() + ")");
      }
      case HloOpcode::kWhile:
        return ExecuteWhile(instruction);
      case HloOpcode::kConditional:
        return ExecuteConditional(instruction);
      case HloOpcode::kCall: {
        const HloComputation& callee = *instruction.to_apply();
        for (int64_t i = 0; i < instruction.operand_count(); ++i) {
          HMO_RETURN_IF_ERROR(ForwardAll(callee.parameter_instruction(i), instruction.operand(i), {}, instruction));
        }
        HMO_RETURN_IF_ERROR(Execute(callee));
        return ForwardAll(&instruction, callee.root_instruction(), {}, instruction);
      }
      default:
        break;
    }
    return ExecuteKernel(instruction);
  }

  struct Read {
    Slice slice;
    int64_t operand_number;
    ShapeIndex index;
  };

  // Reads every array leaf of every operand, then writes every array value
  // the instruction defines.
  absl::Status ExecuteKernel(const HloInstruction& instruction) {
    std::vector<Read> reads;
    for (int64_t i = 0; i < instruction.operand_count(); ++i) {
      const HloInstruction* operand = instruction.operand(i);
      for (const ShapeIndex& index : ArrayLeaves(operand->shape())) {
        HMO_ASSIGN_OR_RETURN(std::optional<Slice> slice, SliceAt(operand, index));
        if (!slice) continue;
        HMO_ASSIGN_OR_RETURN(Token token, FlowAt(operand, index));
        HMO_RETURN_IF_ERROR(CheckHolds(
            *slice, token,
            absl::StrCat("instruction ", instruction.name(), " (operand ", i,
                         index.empty() ? std::string() : " " + ShapeIndexToString(index), ")")));
        reads.push_back(Read{*slice, i, index});
      }
    }
    std::vector<std::pair<Slice, ShapeIndex>> writes;
    for (const ShapeIndex& index : ArrayLeaves(instruction.shape())) {
      if (!dataflow_.ValueIsDefinedAt(&instruction, index)) {
        // Forwarded by this instruction (async wrappers, ...): the value
        // dataflow says is there.
        const HloValueSet& set = dataflow_.GetValueSet(&instruction, index);
        if (set.values().size() == 1) state_.flow[Position(&instruction, index)] = set.values()[0]->id();
        continue;
      }
      const Token token = dataflow_.GetValueDefinedAt(&instruction, index).id();
      state_.flow[Position(&instruction, index)] = token;
      HMO_ASSIGN_OR_RETURN(std::optional<Slice> slice, SliceAt(&instruction, index));
      if (!slice) continue;
      for (const Read& read : reads) {
        if (!Overlaps(read.slice, *slice)) continue;
        if (read.slice == *slice && InPlaceAllowed(instruction, read.operand_number, read.index, index)) continue;
        return absl::FailedPreconditionError(absl::StrCat(
            "buffer plan: instruction ", instruction.name(), " writes ", Describe(token), " into ",
            Range(*slice, slice->offset, slice->offset + slice->size), " while it reads operand ",
            read.operand_number, read.index.empty() ? std::string() : " " + ShapeIndexToString(read.index),
            " (", instruction.operand(read.operand_number)->name(), ") from ",
            Range(read.slice, read.slice.offset, read.slice.offset + read.slice.size),
            read.slice == *slice ? ", and it cannot update that operand in place" : ", which overlaps it"));
      }
      for (const auto& [other, other_index] : writes) {
        if (!Overlaps(other, *slice)) continue;
        return absl::FailedPreconditionError(absl::StrCat(
            "buffer plan: instruction ", instruction.name(), " writes its outputs ", ShapeIndexToString(other_index),
            " and ", ShapeIndexToString(index), " into overlapping bytes of allocation ", slice->index));
      }
      writes.emplace_back(*slice, index);
      HMO_RETURN_IF_ERROR(Write(*slice, token, instruction));
    }
    return absl::OkStatus();
  }

  static bool Overlaps(const Slice& a, const Slice& b) {
    return a.index == b.index && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
  }

  bool InPlaceAllowed(const HloInstruction& user, int64_t operand_number, const ShapeIndex& operand_index,
                      const ShapeIndex& output_index) const {
    if (IsIdentityMove(user)) return true;
    // Pairs that must share (dynamic-update-slice, scatter, fusions rooted
    // in them, output_to_operand_aliasing): the emitters update in place.
    for (const auto& [input, output] : HloDataflowAnalysis::GetInPlaceInputOutputPairs(&user)) {
      if (input.operand_number == operand_number && input.operand_index == operand_index && output == output_index) {
        return true;
      }
    }
    return dataflow_.CanShareOperandBufferWithUser(const_cast<HloInstruction*>(user.operand(operand_number)),
                                                   operand_index, const_cast<HloInstruction*>(&user), output_index);
  }

  absl::Status ExecuteWhile(const HloInstruction& loop) {
    const HloComputation& condition = *loop.while_condition();
    const HloComputation& body = *loop.while_body();
    HMO_RETURN_IF_ERROR(ForwardAll(&loop, loop.operand(0), {}, loop));
    // Two trips: the second reads what the first left behind.
    for (int trip = 0; trip <= 2; ++trip) {
      HMO_RETURN_IF_ERROR(ForwardAll(condition.parameter_instruction(0), &loop, {}, loop));
      HMO_RETURN_IF_ERROR(Execute(condition));
      HMO_ASSIGN_OR_RETURN(std::optional<Slice> predicate, SliceAt(condition.root_instruction(), {}));
      if (predicate) {
        HMO_ASSIGN_OR_RETURN(Token token, FlowAt(condition.root_instruction(), {}));
        HMO_RETURN_IF_ERROR(CheckHolds(*predicate, token, loop.name() + " (its condition's result)"));
      }
      if (trip == 2) break;
      HMO_RETURN_IF_ERROR(ForwardAll(body.parameter_instruction(0), &loop, {}, loop));
      HMO_RETURN_IF_ERROR(Execute(body));
      HMO_RETURN_IF_ERROR(ForwardAll(&loop, body.root_instruction(), {}, loop));
    }
    return absl::OkStatus();
  }

  absl::Status ExecuteConditional(const HloInstruction& conditional) {
    {
      HMO_ASSIGN_OR_RETURN(std::optional<Slice> selector, SliceAt(conditional.operand(0), {}));
      if (selector) {
        HMO_ASSIGN_OR_RETURN(Token token, FlowAt(conditional.operand(0), {}));
        HMO_RETURN_IF_ERROR(CheckHolds(*selector, token, conditional.name() + " (its branch index)"));
      }
    }
    const State before = state_;
    std::vector<State> after;
    const std::vector<ShapeIndex> leaves = ArrayLeaves(conditional.shape());
    for (int64_t k = 0; k < conditional.branch_count(); ++k) {
      state_ = before;
      const HloComputation& branch = *conditional.branch_computation(k);
      if (branch.num_parameters() > 0) {
        HMO_RETURN_IF_ERROR(ForwardAll(branch.parameter_instruction(0), conditional.operand(k + 1), {}, conditional));
      }
      HMO_RETURN_IF_ERROR(Execute(branch));
      HMO_RETURN_IF_ERROR(ForwardAll(&conditional, branch.root_instruction(), {}, conditional));
      for (const ShapeIndex& index : leaves) {
        HMO_ASSIGN_OR_RETURN(std::optional<Slice> slice, SliceAt(&conditional, index));
        if (!slice) continue;
        HMO_ASSIGN_OR_RETURN(Token token, FlowAt(&conditional, index));
        HMO_RETURN_IF_ERROR(CheckHolds(*slice, token,
                                       absl::StrCat(conditional.name(), " ", ShapeIndexToString(index),
                                                    " (the result of branch ", k, ")")));
      }
      after.push_back(std::move(state_));
    }
    if (after.empty()) {
      state_ = before;
      return absl::OkStatus();
    }
    std::vector<Token> results;
    for (const ShapeIndex& index : leaves) {
      Token merged = after[0].flow.at(Position(&conditional, index));
      for (const State& state : after) {
        if (state.flow.at(Position(&conditional, index)) != merged) {
          merged = NewSynthetic(absl::StrCat("the result ", ShapeIndexToString(index), " of ", conditional.name()));
          break;
        }
      }
      results.push_back(merged);
    }
    state_ = MergeBranchStates(conditional, after);
    for (size_t i = 0; i < leaves.size(); ++i) {
      state_.flow[Position(&conditional, leaves[i])] = results[i];
      HMO_ASSIGN_OR_RETURN(std::optional<Slice> slice, SliceAt(&conditional, leaves[i]));
      if (slice) Tag(*slice, results[i], &conditional);
    }
    return absl::OkStatus();
  }

  // Bytes every branch left alike keep their tag; the others hold nothing
  // a later instruction may read (the result is re-tagged by the caller).
  State MergeBranchStates(const HloInstruction& conditional, std::vector<State>& after) {
    State merged;
    merged.flow = std::move(after.back().flow);
    const Token differs =
        NewSynthetic("bytes the branches of " + conditional.name() + " left holding different values");
    absl::flat_hash_set<BufferAllocation::Index> allocations;
    for (const State& state : after) {
      for (const auto& [index, tags] : state.tags) allocations.insert(index);
    }
    for (BufferAllocation::Index index : allocations) {
      std::vector<int64_t> cuts;
      for (const State& state : after) {
        auto it = state.tags.find(index);
        if (it == state.tags.end()) continue;
        for (const auto& [start, segment] : it->second) {
          cuts.push_back(start);
          cuts.push_back(segment.end);
        }
      }
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      AllocationTags& out = merged.tags[index];
      for (size_t c = 0; c + 1 < cuts.size(); ++c) {
        const int64_t begin = cuts[c];
        const int64_t end = cuts[c + 1];
        std::optional<Segment> common;
        bool same = true;
        bool any = false;
        for (const State& state : after) {
          std::optional<Segment> here;
          auto it = state.tags.find(index);
          if (it != state.tags.end()) {
            auto s = it->second.upper_bound(begin);
            if (s != it->second.begin()) {
              --s;
              if (s->second.end >= end) here = Segment{end, s->second.token, s->second.writer};
            }
          }
          any = any || here.has_value();
          if (!common && &state == &after.front()) common = here;
          if (here.has_value() != common.has_value() || (here && !(*here == *common))) same = false;
        }
        if (!any) continue;
        const Segment segment = same ? *common : Segment{end, differs, &conditional};
        // Join with the previous segment when it continues it.
        if (!out.empty()) {
          auto last = std::prev(out.end());
          if (last->second.end == begin && last->second.token == segment.token &&
              last->second.writer == segment.writer) {
            last->second.end = end;
            continue;
          }
        }
        out[begin] = segment;
      }
    }
    return merged;
  }

  const BufferAssignment& assignment_;
  const HloDataflowAnalysis& dataflow_;
  State state_;
  std::vector<std::string> synthetic_;
};

}  // namespace

absl::Status CheckBufferPlan(const BufferAssignment& assignment) { return PlanChecker(assignment).Run(); }

}  // namespace hmo
