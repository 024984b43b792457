#include "hmo/analysis/hlo_live_range.h"

#include <algorithm>
#include <tuple>

#include "analysis_check.h"
#include "absl/strings/str_cat.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {
namespace {

bool IsAsyncOp(const HloInstruction* instruction) {
  const HloOpcode opcode = instruction->opcode();
  return opcode == HloOpcode::kAsyncStart || opcode == HloOpcode::kAsyncUpdate ||
         opcode == HloOpcode::kAsyncDone;
}

// The async-done ending the chain that `instruction` (async-start/-update)
// begins or continues, or null.
const HloInstruction* AsyncChainDone(const HloInstruction* instruction) {
  const HloInstruction* current = instruction;
  while (current != nullptr && current->opcode() != HloOpcode::kAsyncDone) {
    const HloInstruction* next = nullptr;
    for (const HloInstruction* user : current->users()) {
      if ((user->opcode() == HloOpcode::kAsyncUpdate || user->opcode() == HloOpcode::kAsyncDone) &&
          user->operand(0) == current) {
        next = user;
        break;
      }
    }
    current = next;
  }
  return current;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloLiveRange>> HloLiveRange::Run(
    const HloSchedule& schedule, const HloAliasAnalysis& alias_analysis,
    const HloComputation* computation, bool module_scoped_analysis) {
  std::unique_ptr<HloLiveRange> live_range(
      new HloLiveRange(schedule, alias_analysis, module_scoped_analysis));
  HMO_RETURN_IF_ERROR(live_range->FlattenSchedule(*computation, nullptr));
  live_range->CalculateBufferStartEndMap();
  live_range->NormalizeAliasedBuffers();
  return live_range;
}

absl::Status HloLiveRange::FlattenSchedule(const HloComputation& computation,
                                           const HloComputation* async_context) {
  if (!schedule_.is_computation_scheduled(&computation)) {
    total_order_scheduled_ = false;
    return absl::OkStatus();
  }
  if (computation_span_times_.contains(&computation)) return absl::OkStatus();
  if (async_context != nullptr) computations_in_async_context_[&computation] = async_context;

  const LogicalTime start_time = static_cast<LogicalTime>(flattened_instruction_sequence_.size());
  for (HloInstruction* instruction : schedule_.sequence(&computation).instructions()) {
    if (module_scoped_analysis_) {
      const HloOpcode opcode = instruction->opcode();
      if (opcode == HloOpcode::kCall || opcode == HloOpcode::kConditional) {
        for (const HloComputation* callee : instruction->called_computations()) {
          HMO_RETURN_IF_ERROR(FlattenSchedule(*callee, async_context));
        }
      } else if (opcode == HloOpcode::kAsyncStart) {
        // The wrapped computation is placed before the first op of the async
        // chain (the start, whose operands and outputs are all bound).
        if (const HloComputation* wrapped = instruction->async_wrapped_computation()) {
          HMO_RETURN_IF_ERROR(FlattenSchedule(*wrapped, wrapped));
        }
      } else if (opcode == HloOpcode::kWhile) {
        // Condition first, then body.
        HMO_RETURN_IF_ERROR(FlattenSchedule(*instruction->while_condition(), async_context));
        HMO_RETURN_IF_ERROR(FlattenSchedule(*instruction->while_body(), async_context));
      }
    }
    const LogicalTime time = static_cast<LogicalTime>(flattened_instruction_sequence_.size());
    if (!instruction_schedule_.emplace(instruction, time).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Instruction ", instruction->name(), " appears twice in the schedule"));
    }
    flattened_instruction_sequence_.push_back(instruction);
  }
  const LogicalTime end_time = static_cast<LogicalTime>(flattened_instruction_sequence_.size());
  computation_span_times_[&computation] = TimeBound{start_time, end_time, HloPosition{}};
  return absl::OkStatus();
}

std::pair<HloLiveRange::LogicalTime, HloPosition> HloLiveRange::ComputeValueLiveRangeEnd(
    const HloValue& value, LogicalTime definition_end) const {
  LogicalTime end_time = definition_end;
  const HloPosition* end_position = &value.defining_position();
  const auto& positions = value.positions();
  for (size_t i = 1; i < positions.size(); ++i) {
    const HloInstruction* position_instruction = positions[i].instruction;
    LogicalTime position_time;
    if (position_instruction->IsRoot()) {
      // A root position lives to its computation's end.
      auto it = computation_span_times_.find(position_instruction->parent());
      if (it == computation_span_times_.end()) continue;
      position_time = it->second.end;
    } else {
      auto it = instruction_schedule_.find(position_instruction);
      if (it == instruction_schedule_.end()) continue;
      position_time = it->second;
    }
    if (position_time > end_time) {
      end_time = position_time;
      end_position = &positions[i];
    }
  }
  return {end_time, *end_position};
}

HloLiveRange::LogicalTime HloLiveRange::GetLastUsageTime(const HloValue& value) const {
  LogicalTime end_time = -1;
  for (const HloUse& use : value.GetUses()) {
    const HloInstruction* used = use.instruction;
    if (module_scoped_analysis_ && used->opcode() == HloOpcode::kCall &&
        computation_span_times_.contains(used->to_apply())) {
      // The callee's own uses carry the live range.
      continue;
    }
    if (module_scoped_analysis_ && used->opcode() == HloOpcode::kWhile &&
        computation_span_times_.contains(used->while_body())) {
      // The init value dies when the body starts: its buffer is handed over.
      used = used->while_body()->parameter_instruction(0);
    }
    auto it = instruction_schedule_.find(used);
    if (it != instruction_schedule_.end()) end_time = std::max(end_time, it->second);
  }
  return end_time;
}

void HloLiveRange::CalculateBufferStartEndMap() {
  const HloModule& module = alias_analysis_.module();
  const HloDataflowAnalysis& dataflow = alias_analysis_.dataflow_analysis();
  for (const auto& [instruction_ptr, time] : instruction_schedule_) {
    const HloInstruction& instruction = *instruction_ptr;
    const HloComputation* computation = instruction.parent();
    const TimeBound& span = computation_span_times_.at(computation);
    // Parameters are live from their computation's start, so nothing scheduled
    // before them can clobber them.
    LogicalTime start_time = instruction.opcode() == HloOpcode::kParameter ? span.start : time;
    LogicalTime definition_end_time = instruction.IsRoot() ? span.end : time;

    auto async_it = computations_in_async_context_.find(computation);
    if (async_it != computations_in_async_context_.end()) {
      // Inside an async computation: live over the whole async window, from
      // the outer computation's start to the async-done.
      for (const HloInstruction* caller : async_it->second->caller_instructions()) {
        if (!IsAsyncOp(caller)) continue;
        const HloInstruction* async_done =
            caller->opcode() == HloOpcode::kAsyncDone ? caller : AsyncChainDone(caller);
        auto done_it = async_done != nullptr ? instruction_schedule_.find(async_done)
                                             : instruction_schedule_.end();
        if (done_it != instruction_schedule_.end()) {
          definition_end_time = std::max(definition_end_time, done_it->second);
        } else {
          definition_end_time = std::max(definition_end_time, span.end);
        }
        auto outer = computation_span_times_.find(caller->parent());
        if (outer != computation_span_times_.end()) {
          start_time = std::min(start_time, outer->second.start);
        }
      }
    }

    for (const auto& [index, value_set] : dataflow.GetInstructionValueSet(&instruction)) {
      for (const HloValue* value : value_set.values()) {
        if (value->defining_instruction() != &instruction) continue;
        auto [end_time, end_position] = ComputeValueLiveRangeEnd(*value, definition_end_time);
        TimeBound live_range{start_time, end_time, end_position};
        if (instruction.opcode() == HloOpcode::kParameter &&
            computation == module.entry_computation() &&
            !module.input_output_alias_config().ParameterHasAlias(instruction.parameter_number(),
                                                                  value->index())) {
          // Read-only entry parameters live across the whole program.
          live_range.end = schedule_end_time();
        } else {
          live_range.end = std::max(live_range.end, GetLastUsageTime(*value));
        }
        buffer_live_ranges_.emplace(value, live_range);
      }
    }
  }
}

void HloLiveRange::NormalizeAliasedBuffers() {
  absl::flat_hash_map<HloBuffer::Id, std::vector<std::pair<TimeBound*, HloValue::Id>>> by_buffer;
  for (auto& [value, bound] : buffer_live_ranges_) {
    const HloBuffer& buffer = alias_analysis_.GetBufferContainingValue(*value);
    by_buffer[buffer.id()].push_back({&bound, value->id()});
  }
  for (auto& [id, ranges] : by_buffer) {
    std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) {
      return std::forward_as_tuple(a.first->start, a.first->end, a.second) <
             std::forward_as_tuple(b.first->start, b.first->end, b.second);
    });
    for (size_t i = 0; i + 1 < ranges.size(); ++i) {
      TimeBound& first = *ranges[i].first;
      TimeBound& second = *ranges[i + 1].first;
      second.end = std::max(first.end, second.end);
      first.end = std::min(first.end, second.start);
    }
  }
}

std::string HloLiveRange::ToString() const {
  std::string out = absl::StrCat("HloLiveRange (max ", schedule_end_time(), "):\n");
  absl::StrAppend(&out, "  InstructionSequence:\n");
  for (size_t i = 0; i < flattened_instruction_sequence_.size(); ++i) {
    absl::StrAppend(&out, "    ", i, ":", flattened_instruction_sequence_[i]->name(), "\n");
  }
  absl::StrAppend(&out, "  BufferLiveRange:\n");
  for (const HloValue* value : alias_analysis_.dataflow_analysis().values()) {
    auto it = buffer_live_ranges_.find(value);
    if (it == buffer_live_ranges_.end()) continue;
    absl::StrAppend(&out, "    ", value->ToShortString(), ": ", it->second.start, "-",
                    it->second.end, "\n");
  }
  return out;
}

}  // namespace hmo
