#include "hmo/analysis/heap_simulator.h"

#include <algorithm>
#include <tuple>

#include "analysis_check.h"
#include "hmo/analysis/heap_no_fragmentation_stats.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/layout.h"

namespace hmo {

BufferSizeFunction ByteSizeOfValue(int64_t pointer_size) {
  return [pointer_size](const HloValue& value) {
    return ShapeUtil::ByteSizeOf(value.shape(), pointer_size);
  };
}

BufferSizeFunction DeviceByteSizeOfValue(int64_t pointer_size) {
  return [pointer_size](const HloValue& value) -> int64_t {
    if (value.shape().memory_space() == Layout::kHostMemorySpace) return 0;
    return ShapeUtil::ByteSizeOf(value.shape(), pointer_size);
  };
}

HeapSimulator::HeapSimulator(std::unique_ptr<Algorithm> algorithm,
                             const BufferSizeFunction& size_fn, const Options& options,
                             const AliasInfo* alias_info)
    : no_fragmentation_stats_(std::make_unique<NoFragmentationStatsHeap<const HloValue*>>()),
      algorithm_(std::move(algorithm)),
      size_fn_(size_fn),
      options_(options),
      alias_info_(alias_info != nullptr ? alias_info : &DefaultAliasInfo()) {}

HeapSimulator::~HeapSimulator() = default;

absl::StatusOr<int64_t> HeapSimulator::MinimumMemoryForModule(
    const HloSchedule& schedule, const HloAliasAnalysis& alias_analysis,
    const BufferSizeFunction& size_fn, const AliasInfo* alias_info) {
  if (schedule.num_sequences() == 0) return 0;
  HMO_ASSIGN_OR_RETURN(
      Result result,
      Run(std::make_unique<NoFragmentationStatsHeap<const HloValue*>>(), *schedule.module(),
          schedule, alias_analysis, size_fn, Options(), alias_info));
  return result.heap_size;
}

absl::StatusOr<int64_t> HeapSimulator::MinimumMemoryForComputation(
    const HloComputation& computation, const HloInstructionSequence& sequence,
    const HloAliasAnalysis& alias_analysis, const BufferSizeFunction& size_fn,
    const AliasInfo* alias_info) {
  HMO_ASSIGN_OR_RETURN(Result result,
                       Run(std::make_unique<NoFragmentationStatsHeap<const HloValue*>>(),
                           computation, sequence, alias_analysis, size_fn, Options(), alias_info));
  return result.heap_size;
}

absl::StatusOr<HeapSimulator::Result> HeapSimulator::Run(
    std::unique_ptr<Algorithm> algorithm, const HloModule& module, const HloSchedule& schedule,
    const HloAliasAnalysis& alias_analysis, const BufferSizeFunction& size_fn,
    const Options& options, const AliasInfo* alias_info) {
  HeapSimulator heap(std::move(algorithm), size_fn, options, alias_info);
  heap.debug_trace_.whole_module_simulation = true;
  const HloComputation* entry = module.entry_computation();
  if (!schedule.is_computation_scheduled(entry)) {
    return absl::FailedPreconditionError("HeapSimulator: the entry computation has no schedule");
  }
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloLiveRange> live_range,
                       HloLiveRange::Run(schedule, alias_analysis, entry));
  HMO_RETURN_IF_ERROR(heap.RunComputation(alias_analysis, live_range.get()));
  return heap.Finish();
}

absl::StatusOr<HeapSimulator::Result> HeapSimulator::Run(
    std::unique_ptr<Algorithm> algorithm, const HloComputation& computation,
    const HloInstructionSequence& sequence, const HloAliasAnalysis& alias_analysis,
    const BufferSizeFunction& size_fn, const Options& options, const AliasInfo* alias_info) {
  HeapSimulator heap(std::move(algorithm), size_fn, options, alias_info);
  HloSchedule schedule(computation.parent());
  schedule.set_sequence(&computation, sequence);
  HMO_ASSIGN_OR_RETURN(
      std::unique_ptr<HloLiveRange> live_range,
      HloLiveRange::Run(schedule, alias_analysis, &computation, /*module_scoped_analysis=*/false));
  HMO_RETURN_IF_ERROR(heap.RunComputation(alias_analysis, live_range.get()));
  return heap.Finish();
}

absl::StatusOr<HeapSimulator::Result> HeapSimulator::Run(
    std::unique_ptr<Algorithm> algorithm, const HloComputation& computation,
    const HloSchedule& schedule, const HloAliasAnalysis& alias_analysis,
    const BufferSizeFunction& size_fn, const Options& options, const AliasInfo* alias_info) {
  HeapSimulator heap(std::move(algorithm), size_fn, options, alias_info);
  heap.debug_trace_.whole_module_simulation = true;
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloLiveRange> live_range,
                       HloLiveRange::Run(schedule, alias_analysis, &computation));
  HMO_RETURN_IF_ERROR(heap.RunComputation(alias_analysis, live_range.get()));
  return heap.Finish();
}

bool HeapSimulator::IsHeapPressureImpacting(const HloValue* value) const {
  return HloBuffer::IsHeapPressureImpacting(*value, options_.alloc_constants,
                                            options_.buffers_to_assign);
}

int32_t HeapSimulator::FindGroup(int32_t group) {
  while (group_parent_[group] != group) {
    group_parent_[group] = group_parent_[group_parent_[group]];
    group = group_parent_[group];
  }
  return group;
}

int64_t HeapSimulator::GetBufferSize(const HloValue* value) {
  auto it = group_of_.find(value);
  HMO_CHECK(it != group_of_.end()) << value->ToShortString();
  return group_size_[FindGroup(it->second)];
}

void HeapSimulator::MergeGroups(const HloValue* into_value_of, const HloValue* other) {
  const int32_t a = FindGroup(group_of_.at(into_value_of));
  const int32_t b = FindGroup(group_of_.at(other));
  if (a == b) return;
  // The merged group keeps `into_value_of`'s size (XLA's UnionFind::Merge).
  const int64_t size = group_size_[a];
  int32_t root = a;
  int32_t child = b;
  if (group_rank_[a] < group_rank_[b]) std::swap(root, child);
  group_parent_[child] = root;
  if (group_rank_[root] == group_rank_[child]) ++group_rank_[root];
  group_size_[root] = size;
}

void HeapSimulator::AddTrace(HeapSimulatorTrace::Event::Kind kind, const HloValue* value,
                             const HloValue* share_with) {
  HeapSimulatorTrace::Event event;
  event.kind = kind;
  event.buffer_id = value->id();
  event.computation_name = value->instruction()->parent()->name();
  event.instruction_name = value->instruction()->name();
  event.share_with_canonical_id = share_with != nullptr ? share_with->id() : -1;
  debug_trace_.events.push_back(std::move(event));
}

void HeapSimulator::Alloc(const HloValue* value) {
  const int64_t size = GetBufferSize(value);
  algorithm_->Alloc(value, size);
  no_fragmentation_stats_->Alloc(value, size);
  AddTrace(HeapSimulatorTrace::Event::kAlloc, value, nullptr);
}

void HeapSimulator::Free(const HloValue* value) {
  const int64_t size = GetBufferSize(value);
  algorithm_->Free(value, size);
  no_fragmentation_stats_->Free(value, size);
  AddTrace(HeapSimulatorTrace::Event::kFree, value, nullptr);
}

void HeapSimulator::ShareBuffer(const HloValue* value, const HloValue* shared) {
  const int64_t new_size = std::max(GetBufferSize(value), GetBufferSize(shared));
  group_size_[FindGroup(group_of_.at(value))] = new_size;
  MergeGroups(value, shared);
  const int64_t size = GetBufferSize(shared);
  algorithm_->ShareWith(value, shared, size);
  no_fragmentation_stats_->ShareWith(value, shared, size);
  AddTrace(HeapSimulatorTrace::Event::kShareWith, value, shared);
}

absl::Status HeapSimulator::RunComputation(const HloAliasAnalysis& alias_analysis,
                                           HloLiveRange* live_range) {
  const HloDataflowAnalysis& dataflow = alias_analysis.dataflow_analysis();
  auto& live_ranges = live_range->buffer_live_ranges();
  const int64_t end_time = live_range->schedule_end_time();
  std::vector<std::vector<const HloValue*>> defined(end_time + 1);
  std::vector<std::vector<const HloValue*>> freed(end_time + 1);

  std::vector<const HloValue*> values_to_assign;
  for (const HloValue* value : dataflow.values()) {
    if (!live_ranges.contains(value) || !IsHeapPressureImpacting(value)) continue;
    values_to_assign.push_back(value);
  }
  std::sort(values_to_assign.begin(), values_to_assign.end(),
            [&](const HloValue* a, const HloValue* b) {
              const auto& ra = live_ranges.at(a);
              const auto& rb = live_ranges.at(b);
              return std::make_tuple(ra.start, ra.end, a->id()) <
                     std::make_tuple(rb.start, rb.end, b->id());
            });
  for (const HloValue* value : values_to_assign) {
    const auto& range = live_ranges.at(value);
    if (range.start < 0 || range.end > end_time || range.start > range.end) {
      return absl::InternalError("HeapSimulator: live range out of the schedule for " +
                                 value->ToShortString());
    }
    defined[range.start].push_back(value);
    freed[range.end].push_back(value);
  }

  // Every value of an HloBuffer starts in one group of the buffer's size.
  group_of_.reserve(dataflow.values().size());
  for (const HloBuffer& buffer : alias_analysis.buffers()) {
    const int64_t size = buffer.ComputeSize(size_fn_);
    const int32_t group = static_cast<int32_t>(group_parent_.size());
    group_parent_.push_back(group);
    group_rank_.push_back(0);
    group_size_.push_back(size);
    for (const HloValue* value : buffer.values()) group_of_[value] = group;
  }

  absl::flat_hash_map<const HloBuffer*, const HloValue*> first_allocated_value;
  for (int64_t t = 0; t <= end_time; ++t) {
    for (const HloValue* value : defined[t]) {
      const HloBuffer* buffer = &alias_analysis.GetBufferContainingValue(*value);
      auto first = first_allocated_value.find(buffer);
      if (first != first_allocated_value.end()) {
        // Every value of an HloBuffer lives at the same address.
        ShareBuffer(value, first->second);
        continue;
      }
      bool shared = false;
      if (options_.may_reuse_operand_buffers && buffer->values().size() == 1) {
        for (HloInstruction* operand : value->instruction()->operands()) {
          for (const HloValue* operand_value : dataflow.GetValueSet(operand).values()) {
            if (alias_analysis.GetBufferContainingValue(*operand_value).values().size() > 1) {
              continue;
            }
            auto operand_range = live_ranges.find(operand_value);
            if (operand_range == live_ranges.end()) continue;
            // Only a buffer that dies right here can be taken over.
            if (operand_range->second.end != t) continue;
            if (!IsHeapPressureImpacting(operand_value)) continue;
            std::vector<const HloValue*>& due = freed[t];
            if (std::find(due.begin(), due.end(), operand_value) == due.end()) continue;
            HloInstruction* user = value->instruction();
            if (user->IsUserOf(operand_value->instruction()) &&
                user->opcode() != HloOpcode::kCopy &&
                dataflow.CanShareOperandBufferWithUser(operand_value->instruction(),
                                                       operand_value->index(), user,
                                                       value->index(), alias_info_)) {
              Free(operand_value);
              due.erase(std::remove(due.begin(), due.end(), operand_value), due.end());
              ShareBuffer(value, operand_value);
              operand_range->second.end = live_ranges.at(value).end;
              shared = true;
              break;
            }
          }
          if (shared) break;
        }
      }
      if (!shared) {
        Alloc(value);
        first_allocated_value[buffer] = value;
      }
    }
    for (const HloValue* value : freed[t]) Free(value);
  }
  return absl::OkStatus();
}

absl::StatusOr<HeapSimulator::Result> HeapSimulator::Finish() {
  HMO_ASSIGN_OR_RETURN(auto algorithm_result, algorithm_->Finish());
  HMO_ASSIGN_OR_RETURN(auto no_fragmentation_result, no_fragmentation_stats_->Finish());
  Result result;
  result.heap_results = std::move(algorithm_result.heap_results);
  result.heap_size = algorithm_result.heap_size;
  result.fragmentation_size = algorithm_result.heap_size - no_fragmentation_result.heap_size;
  result.debug_trace = std::move(debug_trace_);
  return result;
}

}  // namespace hmo
