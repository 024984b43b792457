#include "hmo/analysis/buffer_assignment.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <optional>

#include "allocation_live_ranges.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis_check.h"
#include "hmo/analysis/best_fit_constrained_heap.h"
#include "hmo/analysis/heap_choose_best.h"
#include "hmo/analysis/tight_packing_heap.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo {
namespace {

using ValueSet = absl::flat_hash_set<const HloValue*>;

int64_t RoundUpTo(int64_t value, int64_t alignment) {
  if (alignment <= 1) return value;
  return (value + alignment - 1) / alignment * alignment;
}

// Entry, and what call / while / conditional / async reach, are global; what
// fusion, reduce, map, sort, scatter, custom-call, ... apply is thread-local.
// Control flow inherits its caller's kind. Both lists are in computation post
// order; unreachable computations are in neither.
absl::Status GatherComputationsByAllocationType(
    const HloModule* module, std::vector<const HloComputation*>* thread_local_computations,
    std::vector<const HloComputation*>* global_computations) {
  std::deque<std::pair<const HloComputation*, bool>> worklist;
  worklist.push_back({module->entry_computation(), false});
  absl::flat_hash_set<const HloComputation*> thread_local_set;
  absl::flat_hash_set<const HloComputation*> global_set;
  while (!worklist.empty()) {
    auto [computation, is_thread_local] = worklist.front();
    worklist.pop_front();
    const bool in_thread_local = thread_local_set.contains(computation);
    const bool in_global = global_set.contains(computation);
    if ((is_thread_local && in_thread_local) || (!is_thread_local && in_global)) continue;
    if ((is_thread_local && in_global) || (!is_thread_local && in_thread_local)) {
      // A global caller could return a reference to a thread-local buffer.
      return absl::InvalidArgumentError(
          absl::StrCat("computation ", computation->name(),
                       " has conflicting allocation requirements (global and thread-local)"));
    }
    (is_thread_local ? thread_local_set : global_set).insert(computation);
    for (const HloInstruction* instruction : computation->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        switch (instruction->opcode()) {
          case HloOpcode::kCall:
          case HloOpcode::kConditional:
          case HloOpcode::kWhile:
          case HloOpcode::kAsyncStart:
          case HloOpcode::kAsyncUpdate:
          case HloOpcode::kAsyncDone:
            worklist.push_back({callee, is_thread_local});
            break;
          default:
            // custom-call, all-reduce, reduce-scatter, map, reduce,
            // reduce-window, scatter, select-and-scatter, sort, fusion, ...
            worklist.push_back({callee, true});
            break;
        }
      }
    }
  }
  for (HloComputation* computation : ComputationPostOrderLikeXla(*module)) {
    if (thread_local_set.contains(computation)) {
      thread_local_computations->push_back(computation);
    } else if (global_set.contains(computation)) {
      global_computations->push_back(computation);
    }
  }
  return absl::OkStatus();
}

// Forwards events to `inner` and records the size it reaches, so a
// ChooseBestHeapAlgorithm's candidates can be reported individually.
class SizeRecordingHeap : public HeapAlgorithm<const HloValue*> {
 public:
  SizeRecordingHeap(std::unique_ptr<HeapAlgorithm<const HloValue*>> inner, int64_t* size)
      : inner_(std::move(inner)), size_(size) {}
  void Alloc(const HloValue* const& buffer, int64_t size) override { inner_->Alloc(buffer, size); }
  void Free(const HloValue* const& buffer, int64_t size) override { inner_->Free(buffer, size); }
  void ShareWith(const HloValue* const& buffer, const HloValue* const& share_with,
                 int64_t size) override {
    inner_->ShareWith(buffer, share_with, size);
  }
  absl::StatusOr<Result> Finish() override {
    absl::StatusOr<Result> result = inner_->Finish();
    if (result.ok()) *size_ = result->heap_size;
    return result;
  }

 private:
  std::unique_ptr<HeapAlgorithm<const HloValue*>> inner_;
  int64_t* size_;
};

struct TempHeapCandidates {
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  int chosen = -1;
};

// Forwards events to a ChooseBestHeapAlgorithm it owns and records which
// candidate won (the heap simulator destroys the algorithm when it returns).
class ChoiceRecordingHeap : public HeapAlgorithm<const HloValue*> {
 public:
  ChoiceRecordingHeap(std::unique_ptr<ChooseBestHeapAlgorithm<const HloValue*>> inner, int* chosen)
      : inner_(std::move(inner)), chosen_(chosen) {}
  void Alloc(const HloValue* const& buffer, int64_t size) override { inner_->Alloc(buffer, size); }
  void Free(const HloValue* const& buffer, int64_t size) override { inner_->Free(buffer, size); }
  void ShareWith(const HloValue* const& buffer, const HloValue* const& share_with,
                 int64_t size) override {
    inner_->ShareWith(buffer, share_with, size);
  }
  absl::StatusOr<Result> Finish() override {
    absl::StatusOr<Result> result = inner_->Finish();
    *chosen_ = inner_->chosen_index();
    return result;
  }

 private:
  std::unique_ptr<ChooseBestHeapAlgorithm<const HloValue*>> inner_;
  int* chosen_;
};

std::unique_ptr<HeapAlgorithm<const HloValue*>> MakeTempHeapAlgorithm(
    TempHeapAlgorithm kind, int64_t alignment, int64_t size_limit,
    const TightPackingOptions& tight_options, TempHeapCandidates* candidates) {
  const uint64_t limit = size_limit < 0 ? std::numeric_limits<uint64_t>::max()
                                        : static_cast<uint64_t>(size_limit);
  struct Candidate {
    std::string name;
    PackingStrategy strategy;
    ChunkPlacement placement;
  };
  std::vector<Candidate> best_fit = {
      {"best-fit-spatial", PackingStrategy::kSpatial, ChunkPlacement::kBestFit},
      {"best-fit-temporal", PackingStrategy::kTemporal, ChunkPlacement::kBestFit}};
  if (kind != TempHeapAlgorithm::kXla) {
    best_fit.push_back(
        {"best-fit-spatial-temporal", PackingStrategy::kSpatialTemporal, ChunkPlacement::kBestFit});
    best_fit.push_back({"lowest-offset-spatial", PackingStrategy::kSpatial, ChunkPlacement::kLowestOffset});
    best_fit.push_back(
        {"lowest-offset-temporal", PackingStrategy::kTemporal, ChunkPlacement::kLowestOffset});
    best_fit.push_back({"lowest-offset-spatial-temporal", PackingStrategy::kSpatialTemporal,
                        ChunkPlacement::kLowestOffset});
  }
  const size_t count = best_fit.size() + (kind == TempHeapAlgorithm::kBest ? 1 : 0);
  candidates->names.clear();
  candidates->sizes.assign(count, -1);
  std::vector<std::unique_ptr<HeapAlgorithm<const HloValue*>>> algorithms;
  for (size_t i = 0; i < best_fit.size(); ++i) {
    candidates->names.push_back(best_fit[i].name);
    algorithms.push_back(std::make_unique<SizeRecordingHeap>(
        std::make_unique<ConstrainedGlobalDecreasingSizeBestFitHeap<const HloValue*>>(
            limit, alignment, best_fit[i].strategy, nullptr, best_fit[i].placement),
        &candidates->sizes[i]));
  }
  if (kind == TempHeapAlgorithm::kBest) {
    candidates->names.push_back("tight-packing");
    algorithms.push_back(std::make_unique<SizeRecordingHeap>(
        std::make_unique<TightPackingHeap<const HloValue*>>(alignment, tight_options),
        &candidates->sizes.back()));
  }
  return std::make_unique<ChoiceRecordingHeap>(
      std::make_unique<ChooseBestHeapAlgorithm<const HloValue*>>(std::move(algorithms)),
      &candidates->chosen);
}

// Replays a heap trace counting live bytes the way XLA's
// ComputePeakMemoryLogicalBuffers does: a value sharing a buffer that is still
// live adds nothing; one sharing a freed buffer (operand reuse) adds its size.
class LiveBytesReplay {
 public:
  explicit LiveBytesReplay(const absl::flat_hash_map<HloValue::Id, int64_t>* sizes)
      : sizes_(sizes) {}
  bool Tracks(HloValue::Id id) const { return sizes_->contains(id); }
  // The change of live bytes caused by `event` (whose value Tracks()).
  int64_t Delta(const HeapSimulatorTrace::Event& event) {
    const int64_t size = sizes_->at(event.buffer_id);
    switch (event.kind) {
      case HeapSimulatorTrace::Event::kAlloc:
        outstanding_[event.buffer_id] = 1;
        allocated_[event.buffer_id] = size;
        return size;
      case HeapSimulatorTrace::Event::kShareWith:
        canonical_[event.buffer_id] = event.share_with_canonical_id;
        if (++outstanding_[event.share_with_canonical_id] == 1) {
          allocated_[event.buffer_id] = size;
          return size;
        }
        allocated_[event.buffer_id] = 0;
        return 0;
      case HeapSimulatorTrace::Event::kFree: {
        auto it = canonical_.find(event.buffer_id);
        --outstanding_[it == canonical_.end() ? event.buffer_id : it->second];
        return -allocated_[event.buffer_id];
      }
    }
    return 0;
  }

 private:
  const absl::flat_hash_map<HloValue::Id, int64_t>* sizes_;
  absl::flat_hash_map<int64_t, int> outstanding_;
  absl::flat_hash_map<int64_t, int64_t> canonical_;
  absl::flat_hash_map<int64_t, int64_t> allocated_;
};

// The most bytes live at once in `trace` (values of `sizes` only), a group
// of values sharing one buffer counted once while any of them is live. (XLA's
// peak-buffer replay above undercounts a chain of shared values once its
// first value is freed, so it is not used for this bound.)
int64_t MaxLiveBytes(const HeapSimulatorTrace& trace,
                     const absl::flat_hash_map<HloValue::Id, int64_t>& sizes) {
  absl::flat_hash_map<HloValue::Id, HloValue::Id> parent;
  absl::flat_hash_map<HloValue::Id, int64_t> live_members;
  auto root_of = [&](HloValue::Id id) {
    while (true) {
      auto it = parent.find(id);
      if (it == parent.end() || it->second == id) return id;
      id = it->second;
    }
  };
  int64_t live = 0;
  int64_t max_live = 0;
  for (const auto& event : trace.events) {
    auto size = sizes.find(event.buffer_id);
    if (size == sizes.end()) continue;
    switch (event.kind) {
      case HeapSimulatorTrace::Event::kAlloc:
        parent[event.buffer_id] = event.buffer_id;
        if (++live_members[event.buffer_id] == 1) live += size->second;
        break;
      case HeapSimulatorTrace::Event::kShareWith: {
        const HloValue::Id root = root_of(event.share_with_canonical_id);
        parent[event.buffer_id] = root;
        if (++live_members[root] == 1) live += sizes.contains(root) ? sizes.at(root) : size->second;
        break;
      }
      case HeapSimulatorTrace::Event::kFree: {
        const HloValue::Id root = root_of(event.buffer_id);
        if (--live_members[root] == 0) live -= sizes.contains(root) ? sizes.at(root) : size->second;
        break;
      }
    }
    max_live = std::max(max_live, live);
  }
  return max_live;
}

// The values live at the earliest moment the allocation's live bytes peak
// (XLA's ComputePeakMemoryLogicalBuffers).
std::vector<const HloValue*> ComputePeakMemoryLogicalBuffers(const BufferAllocation& allocation,
                                                             const HeapSimulatorTrace& trace) {
  absl::flat_hash_map<HloValue::Id, const HloValue*> id_to_value;
  absl::flat_hash_map<HloValue::Id, int64_t> sizes;
  for (const auto& [value, offset_size] : allocation.assigned_buffers()) {
    id_to_value[value->id()] = value;
    sizes[value->id()] = offset_size.size;
  }
  int64_t max_live = 0;
  {
    LiveBytesReplay first_pass(&sizes);
    int64_t running = 0;
    for (const auto& event : trace.events) {
      if (!first_pass.Tracks(event.buffer_id)) continue;
      running += first_pass.Delta(event);
      max_live = std::max(max_live, running);
    }
  }
  LiveBytesReplay replay(&sizes);
  ValueSet live_values;
  int64_t live = 0;
  for (const auto& event : trace.events) {
    if (!replay.Tracks(event.buffer_id)) continue;
    const HloValue* value = id_to_value.at(event.buffer_id);
    const int64_t delta = replay.Delta(event);
    if (delta > 0) {
      live_values.insert(value);
    } else if (delta < 0) {
      live_values.erase(value);
    }
    live += delta;
    if (live == max_live) break;
  }
  std::vector<const HloValue*> result(live_values.begin(), live_values.end());
  std::sort(result.begin(), result.end(), HloValueIdLessThan);
  return result;
}

}  // namespace

int64_t DefaultColorOfValue(const HloValue& value) {
  const Shape& shape = value.defining_position().shape();
  return shape.IsArray() && shape.has_layout() ? shape.layout().memory_space() : 0;
}

// ------------------------------------------------------- BufferAllocation

absl::Status BufferAllocation::AddAssignment(const HloValue& value, int64_t offset, int64_t size) {
  if (assigned_buffers_.contains(&value)) {
    return absl::InternalError(
        absl::StrCat(value.ToShortString(), " already assigned to allocation ", index_));
  }
  if (offset < 0 || offset + size > size_) {
    return absl::InternalError(absl::StrCat(value.ToShortString(), " at offset ", offset,
                                            " size ", size, " does not fit allocation ", index_,
                                            " of size ", size_));
  }
  if (!(IsPreallocatedTempBuffer() && color_ != 0) && value.color() != color_) {
    return absl::InternalError(absl::StrCat("Buffer color ", value.color(), " for ",
                                            value.ToShortString(),
                                            " does not match allocation color ", color_));
  }
  assigned_buffers_.emplace(&value, OffsetSize{offset, size});
  return absl::OkStatus();
}

std::vector<std::pair<const HloValue*, BufferAllocation::OffsetSize>>
BufferAllocation::SortedAssignedBuffers() const {
  std::vector<std::pair<const HloValue*, OffsetSize>> sorted(assigned_buffers_.begin(),
                                                             assigned_buffers_.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first->id() < b.first->id(); });
  return sorted;
}

std::string BufferAllocation::ToString() const {
  std::string out = absl::StrFormat("allocation %d: size %d", index_, size_);
  if (color_ != 0) absl::StrAppend(&out, ", color ", color_);
  if (is_entry_computation_parameter_) {
    absl::StrAppend(&out, ", parameter ", parameter_number_, " at ShapeIndex ",
                    ShapeIndexToString(param_shape_index_));
  }
  if (is_constant_) absl::StrAppend(&out, ", constant");
  if (is_thread_local_) absl::StrAppend(&out, ", thread-local");
  if (maybe_live_out_) absl::StrAppend(&out, ", maybe-live-out");
  if (IsPreallocatedTempBuffer()) absl::StrAppend(&out, ", preallocated-temp");
  absl::StrAppend(&out, ":\n");
  for (const auto& [value, offset_size] : SortedAssignedBuffers()) {
    absl::StrAppend(&out, absl::StrFormat(" value: %s (size=%d,offset=%d): %s\n",
                                          value->ToShortString(), offset_size.size,
                                          offset_size.offset, value->shape().ToString()));
  }
  return out;
}

// ------------------------------------------------------- BufferAssignment

BufferAssignment::BufferAssignment(const HloModule* module,
                                   std::unique_ptr<HloAliasAnalysis> alias_analysis,
                                   std::unique_ptr<HloSchedule> schedule,
                                   std::unique_ptr<HloLiveRange> live_range,
                                   BufferSizeFunction buffer_size,
                                   std::function<int64_t(int64_t)> color_alignment,
                                   int64_t multiheap_size_constraint_per_heap)
    : module_(module),
      alias_analysis_(std::move(alias_analysis)),
      schedule_(std::move(schedule)),
      hlo_live_range_(std::move(live_range)),
      buffer_size_(std::move(buffer_size)),
      color_alignment_(std::move(color_alignment)),
      multiheap_size_constraint_per_heap_(multiheap_size_constraint_per_heap < 0
                                              ? std::numeric_limits<int64_t>::max()
                                              : multiheap_size_constraint_per_heap) {}

const BufferAllocation& BufferAssignment::GetAssignedAllocation(const HloValue& value) const {
  auto it = allocation_index_for_value_.find(&value);
  HMO_CHECK(it != allocation_index_for_value_.end()) << value.ToShortString();
  return allocations_[it->second];
}

std::set<BufferAssignment::Slice> BufferAssignment::GetAllSlices(const HloInstruction* instruction,
                                                                 const ShapeIndex& index) const {
  std::set<Slice> result;
  for (const HloValue* value : dataflow_analysis().GetValueSet(instruction, index).values()) {
    auto it = allocation_index_for_value_.find(value);
    if (it == allocation_index_for_value_.end()) continue;
    const BufferAllocation::OffsetSize& os = allocations_[it->second].assigned_buffers().at(value);
    result.insert(Slice{it->second, os.offset, os.size});
  }
  return result;
}

int64_t BufferAssignment::HloBufferSize(const HloBuffer& buffer) const {
  auto it = cached_buffer_sizes_.find(buffer.id());
  if (it != cached_buffer_sizes_.end()) return it->second;
  const int64_t size = buffer.ComputeSize(buffer_size_);
  cached_buffer_sizes_[buffer.id()] = size;
  return size;
}

BufferAllocation* BufferAssignment::NewEmptyAllocation(int64_t size, int64_t color) {
  allocations_.emplace_back(static_cast<BufferAllocation::Index>(allocations_.size()), size, color);
  return &allocations_.back();
}

absl::StatusOr<BufferAllocation*> BufferAssignment::NewAllocation(const HloBuffer& buffer,
                                                                  int64_t size) {
  HMO_ASSIGN_OR_RETURN(int64_t color, buffer.color());
  BufferAllocation* allocation = NewEmptyAllocation(size, color);
  HMO_RETURN_IF_ERROR(AddAssignment(allocation, buffer, /*offset=*/0, size));
  allocation->peak_buffers_.push_back(buffer.values()[0]);
  return allocation;
}

absl::Status BufferAssignment::AddAssignment(BufferAllocation* allocation, const HloBuffer& buffer,
                                             int64_t offset, int64_t size) {
  for (const HloValue* value : buffer.values()) {
    if (allocation_index_for_value_.contains(value)) {
      return absl::InternalError(absl::StrCat(value->ToShortString(), " already has an allocation"));
    }
    HMO_RETURN_IF_ERROR(allocation->AddAssignment(*value, offset, size));
    allocation_index_for_value_[value] = allocation->index();
  }
  if (alias_analysis_->BufferLivesOut(buffer)) allocation->maybe_live_out_ = true;
  return absl::OkStatus();
}

absl::Status BufferAssignment::AddAssignment(BufferAllocation* allocation, const HloValue& value,
                                             int64_t offset, int64_t size) {
  HMO_RETURN_IF_ERROR(allocation->AddAssignment(value, offset, size));
  allocation_index_for_value_[&value] = allocation->index();
  if (alias_analysis_->ValueLivesOut(value)) allocation->maybe_live_out_ = true;
  return absl::OkStatus();
}

absl::Status BufferAssignment::CombineTempAllocations() {
  // The temp allocations move to the end (XLA uses std::partition, which may
  // reorder the others; the same call here keeps indices identical).
  const auto first_temp = std::partition(
      allocations_.begin(), allocations_.end(),
      [](const BufferAllocation& allocation) { return !allocation.IsPreallocatedTempBuffer(); });
  std::vector<BufferAllocation> combined;
  combined.reserve(allocations_.end() - first_temp);
  absl::flat_hash_map<int64_t, size_t> combined_for_color;
  for (auto it = first_temp; it != allocations_.end(); ++it) {
    BufferAllocation& temp = *it;
    const int64_t color = temp.color();
    auto found = combined_for_color.find(color);
    if (found == combined_for_color.end()) {
      combined.push_back(std::move(temp));
      combined_for_color[color] = combined.size() - 1;
      continue;
    }
    if (combined[found->second].size() + temp.size() >= multiheap_size_constraint_per_heap_) {
      combined.push_back(std::move(temp));
      found->second = combined.size() - 1;
      continue;
    }
    // Placed end to end, aligned.
    BufferAllocation& target = combined[found->second];
    const int64_t base = RoundUpTo(target.size(), color_alignment_(color));
    target.size_ = base + temp.size();
    for (const auto& [value, offset_size] : temp.SortedAssignedBuffers()) {
      HMO_RETURN_IF_ERROR(target.AddAssignment(*value, base + offset_size.offset, offset_size.size));
    }
    for (HeapSimulatorTrace& trace : temp.heap_traces_) target.heap_traces_.push_back(std::move(trace));
    target.peak_buffers_.insert(target.peak_buffers_.end(), temp.peak_buffers_.begin(),
                                temp.peak_buffers_.end());
  }
  allocations_.erase(first_temp, allocations_.end());
  for (BufferAllocation& allocation : combined) allocations_.push_back(std::move(allocation));
  allocation_index_for_value_.clear();
  for (size_t index = 0; index < allocations_.size(); ++index) {
    allocations_[index].index_ = static_cast<BufferAllocation::Index>(index);
    for (const auto& [value, offset_size] : allocations_[index].assigned_buffers()) {
      allocation_index_for_value_[value] = static_cast<BufferAllocation::Index>(index);
    }
  }
  return absl::OkStatus();
}

void BufferAssignment::ComputeSummaryStats() {
  for (const BufferAllocation& allocation : allocations_) {
    if (allocation.is_entry_computation_parameter()) {
      ++stats_.parameter_allocation_count;
      stats_.parameter_allocation_bytes += allocation.size();
    }
    if (allocation.is_constant()) {
      ++stats_.constant_allocation_count;
      stats_.constant_allocation_bytes += allocation.size();
    }
    if (allocation.maybe_live_out()) {
      ++stats_.maybe_live_out_allocation_count;
      stats_.maybe_live_out_allocation_bytes += allocation.size();
    }
    if (allocation.IsPreallocatedTempBuffer()) {
      ++stats_.preallocated_temp_allocation_count;
      stats_.preallocated_temp_allocation_bytes += allocation.size();
    }
    ++stats_.total_allocation_count;
    stats_.total_allocation_bytes += allocation.size();
  }
}

std::string BufferAssignment::ToString() const {
  std::string out = "BufferAssignment:\n";
  int64_t total = 0;
  for (const BufferAllocation& allocation : allocations_) {
    total += allocation.size();
    absl::StrAppend(&out, allocation.ToString());
  }
  absl::StrAppend(&out, "\nTotal bytes used: ", total, "\n");
  return out;
}

// --------------------------------------------------------- BufferAssigner

absl::StatusOr<std::unique_ptr<BufferAssignment>> BufferAssigner::Run(
    const HloModule* module, const HloSchedule& schedule, BufferSizeFunction buffer_size,
    std::function<int64_t(int64_t)> color_alignment, Options options,
    const AliasInfo* alias_info) {
  BufferAssigner assigner(options, alias_info != nullptr ? alias_info : &DefaultAliasInfo());
  if (!color_alignment) color_alignment = [](int64_t) { return int64_t{1}; };
  return assigner.CreateAssignment(module, schedule, std::move(buffer_size),
                                   std::move(color_alignment));
}

bool BufferAssigner::LiveRangeInterferes(const HloValue* buffer1, const HloValue* buffer2,
                                         const BufferAssignment* assignment) const {
  const auto& live_ranges = assignment->hlo_live_range().buffer_live_ranges();
  auto it1 = live_ranges.find(buffer1);
  auto it2 = live_ranges.find(buffer2);
  // Without a live range nothing can be proven: assume they interfere.
  if (it1 == live_ranges.end() || it2 == live_ranges.end()) return true;
  const HloLiveRange::TimeBound& range1 = it1->second;
  const HloLiveRange::TimeBound& range2 = it2->second;
  // A value may take over an operand whose range ends where its own starts
  // when the operand's last position is a direct operand it can share with.
  auto can_share_as_operand = [&](const HloValue* user_value,
                                  const HloLiveRange::TimeBound& operand_range) {
    const HloPosition& end_position = operand_range.end_position;
    return end_position.instruction != nullptr &&
           user_value->instruction()->opcode() != HloOpcode::kCopy &&
           user_value->instruction()->IsUserOf(end_position.instruction) &&
           assignment->dataflow_analysis().CanShareOperandBufferWithUser(
               end_position.instruction, end_position.index, user_value->instruction(),
               user_value->index(), alias_info_);
  };
  if (range1.start > range2.end || range2.start > range1.end) return false;
  if (range1.end == range2.start) return !can_share_as_operand(buffer2, range1);
  if (range2.end == range1.start) return !can_share_as_operand(buffer1, range2);
  return true;
}

absl::StatusOr<bool> BufferAssigner::MaybeAssignBuffer(BufferAllocation::Index allocation_index,
                                                       const HloBuffer& buffer,
                                                       AllocationLiveRanges* assigned_ranges,
                                                       BufferAssignment* assignment) {
  BufferAllocation* allocation = &assignment->allocations_[allocation_index];
  HMO_ASSIGN_OR_RETURN(int64_t color, buffer.color());
  if (color != allocation->color()) return false;
  const int64_t size = assignment->HloBufferSize(buffer);
  if (size > allocation->size()) return false;
  if (allocation->is_readonly()) return false;
  if (!allocation->is_reusable()) return false;
  if (!allocation->assigned_buffers().empty()) {
    // XLA tests the new values against every assigned value; only those
    // whose live ranges meet can interfere, so only they are tested.
    if (!assignment->hlo_live_range().total_order_scheduled()) return false;
    const AllocationLiveRanges::Entry& assigned = assigned_ranges->Get(*allocation);
    if (assigned.has_value_without_range()) return false;
    const auto& live_ranges = assignment->hlo_live_range().buffer_live_ranges();
    for (const HloValue* new_value : buffer.values()) {
      auto range = live_ranges.find(new_value);
      if (range == live_ranges.end()) return false;
      if (assigned.AnyMeeting(range->second.start, range->second.end, [&](const HloValue* value) {
            return LiveRangeInterferes(new_value, value, assignment);
          })) {
        return false;
      }
      // A copy never writes into the buffer it reads.
      if (new_value->instruction()->opcode() == HloOpcode::kCopy) {
        for (const HloInstruction* operand : new_value->instruction()->operands()) {
          if (assigned.HasPositionAt(operand)) return false;
        }
      }
    }
  }
  // Live-out buffers only go where they fit exactly (results may outlive the
  // program's other buffers).
  if (assignment->alias_analysis().BufferLivesOut(buffer) && allocation->size() != size) {
    return false;
  }
  HMO_RETURN_IF_ERROR(assignment->AddAssignment(allocation, buffer, /*offset=*/0, size));
  assigned_ranges->Added(*allocation, buffer.values());
  return true;
}

absl::Status BufferAssigner::AssignSingleHloBuffer(
    const HloBuffer* buffer, bool is_thread_local,
    ValuesByComputation* buffers_to_assign_sequentially,
    std::vector<BufferAllocation::Index>* allocation_indices, AllocationLiveRanges* assigned_ranges,
    BufferAssignment* assignment) {
  const int64_t buffer_size = assignment->HloBufferSize(*buffer);
  for (const HloValue* value : buffer->values()) {
    if (value->instruction()->opcode() == HloOpcode::kConstant) {
      if (options_.allocate_buffers_for_constants) {
        HMO_ASSIGN_OR_RETURN(BufferAllocation * allocation,
                             assignment->NewAllocation(*buffer, buffer_size));
        allocation->is_constant_ = true;
      }
      return absl::OkStatus();
    }
    const HloInstruction* instruction = value->instruction();
    if (instruction->opcode() == HloOpcode::kParameter &&
        instruction->parent() == assignment->module().entry_computation()) {
      const bool aliased = assignment->module().input_output_alias_config().ParameterHasAlias(
          instruction->parameter_number(), value->index());
      HMO_ASSIGN_OR_RETURN(BufferAllocation * allocation,
                           assignment->NewAllocation(*buffer, buffer_size));
      allocation->is_entry_computation_parameter_ = true;
      allocation->parameter_number_ = instruction->parameter_number();
      allocation->param_shape_index_ = value->index();
      allocation->is_parameter_aliased_with_output_ = aliased;
      if (aliased) allocation_indices->push_back(allocation->index());
      return absl::OkStatus();
    }
  }
  if (is_thread_local) {
    HMO_ASSIGN_OR_RETURN(BufferAllocation * allocation,
                         assignment->NewAllocation(*buffer, buffer_size));
    allocation->is_thread_local_ = true;
    return absl::OkStatus();
  }
  for (const HloValue* value : buffer->values()) {
    if (value->shape().IsTuple()) {
      HMO_ASSIGN_OR_RETURN(BufferAllocation * allocation,
                           assignment->NewAllocation(*buffer, buffer_size));
      allocation->is_tuple_ = true;
      return absl::OkStatus();
    }
    if (value->IsTopLevel() && !value->IsTuple()) {
      // Try an operand's allocation.
      for (const HloInstruction* operand : value->instruction()->operands()) {
        for (const BufferAssignment::Slice& slice : assignment->GetAllSlices(operand, {})) {
          HMO_ASSIGN_OR_RETURN(
              bool assigned, MaybeAssignBuffer(slice.index, *buffer, assigned_ranges, assignment));
          if (assigned) return absl::OkStatus();
        }
      }
    }
  }
  // The smallest earlier allocation that fits (the list ends with the
  // smallest because buffers are visited largest first).
  for (int64_t i = static_cast<int64_t>(allocation_indices->size()) - 1; i >= 0; --i) {
    HMO_ASSIGN_OR_RETURN(bool assigned, MaybeAssignBuffer((*allocation_indices)[i], *buffer,
                                                          assigned_ranges, assignment));
    if (assigned) return absl::OkStatus();
  }
  if (!assignment->HasAllocation(*buffer) &&
      !assignment->alias_analysis().BufferLivesOut(*buffer)) {
    bool all_sequential = true;
    for (const HloValue* value : buffer->values()) {
      all_sequential &=
          assignment->schedule().is_computation_scheduled(value->instruction()->parent());
    }
    if (all_sequential && buffers_to_assign_sequentially != nullptr) {
      // Temp buffer: packed later by the heap simulation.
      for (const HloValue* value : buffer->values()) {
        (*buffers_to_assign_sequentially)[value->instruction()->parent()].insert(value);
      }
      return absl::OkStatus();
    }
  }
  if (!assignment->HasAllocation(*buffer)) {
    HMO_ASSIGN_OR_RETURN(BufferAllocation * allocation,
                         assignment->NewAllocation(*buffer, buffer_size));
    allocation_indices->push_back(allocation->index());
  }
  return absl::OkStatus();
}

absl::Status BufferAssigner::AssignBuffersForComputations(
    const std::vector<const HloComputation*>& computations, bool is_thread_local,
    ValuesByComputation* buffers_to_assign_sequentially, BufferAssignment* assignment) {
  if (computations.empty()) return absl::OkStatus();
  const HloAliasAnalysis& alias_analysis = assignment->alias_analysis();
  const absl::flat_hash_set<const HloComputation*> computation_set(computations.begin(),
                                                                   computations.end());
  std::vector<const HloBuffer*> sorted_buffers;
  for (const HloBuffer& buffer : alias_analysis.buffers()) {
    if (computation_set.contains(buffer.values()[0]->instruction()->parent())) {
      sorted_buffers.push_back(&buffer);
    }
  }

  // Post-order positions: computations callers first (reverse of the call
  // graph's callee-first visit), instructions in post order.
  absl::flat_hash_map<const HloInstruction*, int64_t> post_order_position;
  std::vector<const HloComputation*> reverse_post_order;
  const CallGraph& call_graph = alias_analysis.dataflow_analysis().call_graph();
  HMO_RETURN_IF_ERROR(call_graph.VisitNodes([&](const CallGraphNode& node) {
    if (computation_set.contains(node.computation())) reverse_post_order.push_back(node.computation());
    return absl::OkStatus();
  }));
  std::reverse(reverse_post_order.begin(), reverse_post_order.end());
  int64_t position = 0;
  for (const HloComputation* computation : reverse_post_order) {
    for (const HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      post_order_position.emplace(instruction, position++);
    }
  }

  if (buffers_to_assign_sequentially != nullptr) {
    // Every scheduled computation gets an entry, even with no temp values, so
    // the caller can tell whether the whole module is scheduled.
    for (const HloComputation* computation : computations) {
      if (assignment->schedule().is_computation_scheduled(computation)) {
        buffers_to_assign_sequentially->try_emplace(computation);
      }
    }
  }

  auto min_position = [&](const HloBuffer* buffer) {
    int64_t best = std::numeric_limits<int64_t>::max();
    for (const HloValue* value : buffer->values()) {
      auto it = post_order_position.find(value->instruction());
      if (it != post_order_position.end()) best = std::min(best, it->second);
    }
    return best;
  };
  // The sort keys, computed once per buffer: the comparator runs n log n
  // times, and size and liveness lookups are hash-map probes.
  struct SortKey {
    int64_t size;
    bool lives_out;
    int64_t position;
    int64_t id;
    const HloBuffer* buffer;
  };
  std::vector<SortKey> keys;
  keys.reserve(sorted_buffers.size());
  for (const HloBuffer* buffer : sorted_buffers) {
    keys.push_back({assignment->HloBufferSize(*buffer), alias_analysis.BufferLivesOut(*buffer),
                    min_position(buffer), static_cast<int64_t>(buffer->id()), buffer});
  }
  const bool biggest_first = options_.buffer_order == BufferOrder::kBiggestFirst;
  std::sort(keys.begin(), keys.end(), [&](const SortKey& a, const SortKey& b) {
    // kBiggestFirst: size descending, live-out first, post-order position;
    // otherwise position, then size and live-out; the id breaks ties.
    if (biggest_first) {
      if (a.size != b.size) return a.size > b.size;
      if (a.lives_out != b.lives_out) return a.lives_out;
      if (a.position != b.position) return a.position < b.position;
    } else {
      if (a.position != b.position) return a.position < b.position;
      if (a.size != b.size) return a.size > b.size;
      if (a.lives_out != b.lives_out) return a.lives_out;
    }
    return a.id < b.id;
  });
  for (size_t i = 0; i < keys.size(); ++i) sorted_buffers[i] = keys[i].buffer;

  std::vector<BufferAllocation::Index> allocation_indices;
  AllocationLiveRanges assigned_ranges(assignment->hlo_live_range());
  for (const HloBuffer* buffer : sorted_buffers) {
    HMO_RETURN_IF_ERROR(AssignSingleHloBuffer(buffer, is_thread_local,
                                              buffers_to_assign_sequentially, &allocation_indices,
                                              &assigned_ranges, assignment));
  }
  return absl::OkStatus();
}

absl::Status BufferAssigner::RunTempHeapSimulation(const ValueSet& values, int64_t color,
                                                   const HloComputation* computation,
                                                   const HloInstructionSequence* sequence,
                                                   const HloSchedule& schedule,
                                                   BufferAssignment* assignment) {
  const int64_t alignment = assignment->color_alignment_(color);
  TempHeapCandidates candidates;
  std::unique_ptr<HeapSimulator::Algorithm> algorithm = MakeTempHeapAlgorithm(
      options_.heap_algorithm, alignment, assignment->multiheap_size_constraint_per_heap_ ==
                                                  std::numeric_limits<int64_t>::max()
                                              ? -1
                                              : assignment->multiheap_size_constraint_per_heap_,
      options_.tight_packing, &candidates);
  HeapSimulator::Options heap_options;
  heap_options.alloc_constants = options_.allocate_buffers_for_constants;
  heap_options.buffers_to_assign = &values;
  HeapSimulator::Result result;
  if (computation == nullptr) {
    HMO_ASSIGN_OR_RETURN(result, HeapSimulator::Run(std::move(algorithm), assignment->module(),
                                                    schedule, assignment->alias_analysis(),
                                                    assignment->buffer_size_, heap_options,
                                                    alias_info_));
  } else {
    HMO_ASSIGN_OR_RETURN(result, HeapSimulator::Run(std::move(algorithm), *computation, *sequence,
                                                    assignment->alias_analysis(),
                                                    assignment->buffer_size_, heap_options,
                                                    alias_info_));
  }

  TempHeapSummary summary;
  summary.color = color;
  summary.heap_size = result.heap_size;
  // A true lower bound: the most bytes of these groups live at once. (XLA's
  // NoFragmentationStatsHeap counts a value sharing a live buffer again.)
  absl::flat_hash_map<HloValue::Id, int64_t> sizes;
  for (const HeapResult<const HloValue*>& heap : result.heap_results) {
    for (const auto& [value, chunk] : heap.chunk_map) sizes[value->id()] = chunk.size;
  }
  summary.lower_bound = MaxLiveBytes(result.debug_trace, sizes);
  summary.value_count = static_cast<int64_t>(values.size());
  summary.xla_heap_size = std::min(candidates.sizes[0], candidates.sizes[1]);
  summary.algorithm = candidates.chosen >= 0 ? candidates.names[candidates.chosen] : "";
  assignment->temp_heaps_.push_back(summary);

  auto& stats = assignment->stats_;
  stats.preallocated_temp_fragmentation_bytes =
      (stats.preallocated_temp_fragmentation_bytes == -1 ? 0
                                                         : stats.preallocated_temp_fragmentation_bytes) +
      result.fragmentation_size;

  for (const HeapResult<const HloValue*>& heap : result.heap_results) {
    BufferAllocation* allocation = assignment->NewEmptyAllocation(heap.heap_size, color);
    // Sorted for a deterministic insertion order.
    std::vector<std::pair<const HloValue*, HeapChunk>> chunks(heap.chunk_map.begin(),
                                                              heap.chunk_map.end());
    std::sort(chunks.begin(), chunks.end(),
              [](const auto& a, const auto& b) { return a.first->id() < b.first->id(); });
    for (const auto& [value, chunk] : chunks) {
      HMO_RETURN_IF_ERROR(assignment->AddAssignment(allocation, *value, chunk.offset, chunk.size));
    }
    allocation->peak_buffers_ = ComputePeakMemoryLogicalBuffers(*allocation, result.debug_trace);
    allocation->heap_traces_.push_back(result.debug_trace);
  }
  return absl::OkStatus();
}

absl::Status BufferAssigner::AssignBuffersWithSequentialOrdering(
    const ValuesByComputation& buffers_to_assign_sequentially,
    bool run_whole_module_heap_simulation, BufferAssignment* assignment) {
  auto split_by_color = [](const ValueSet& values) {
    std::map<int64_t, ValueSet> by_color;  // sorted colors
    for (const HloValue* value : values) by_color[value->color()].insert(value);
    return by_color;
  };
  if (run_whole_module_heap_simulation) {
    // One simulation over the whole module: buffers of callees are only live
    // while their caller runs.
    HloSchedule schedule(&assignment->module());
    ValueSet all_values;
    for (const auto& [computation, values] : buffers_to_assign_sequentially) {
      schedule.set_sequence(computation, assignment->schedule().sequence(computation));
      all_values.insert(values.begin(), values.end());
    }
    for (const auto& [color, values] : split_by_color(all_values)) {
      HMO_RETURN_IF_ERROR(
          RunTempHeapSimulation(values, color, nullptr, nullptr, schedule, assignment));
    }
    return absl::OkStatus();
  }
  // Per computation: sub-computation buffers get disjoint memory, as if all
  // computations were live at once. Computations in post order for a
  // deterministic allocation order.
  for (HloComputation* computation : ComputationPostOrderLikeXla(assignment->module())) {
    auto it = buffers_to_assign_sequentially.find(computation);
    if (it == buffers_to_assign_sequentially.end()) continue;
    const HloInstructionSequence& sequence = assignment->schedule().sequence(computation);
    for (const auto& [color, values] : split_by_color(it->second)) {
      HMO_RETURN_IF_ERROR(RunTempHeapSimulation(values, color, computation, &sequence,
                                                assignment->schedule(), assignment));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<BufferAssignment>> BufferAssigner::CreateAssignment(
    const HloModule* module, const HloSchedule& schedule, BufferSizeFunction buffer_size,
    std::function<int64_t(int64_t)> color_alignment) {
  if (!module->has_entry_computation()) {
    return absl::InvalidArgumentError("BufferAssigner: the module has no entry computation");
  }
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloAliasAnalysis> alias_analysis,
                       HloAliasAnalysis::Run(module, alias_info_));
  // Only sequences of computations still in the module are kept.
  auto own_schedule = std::make_unique<HloSchedule>(module);
  for (HloComputation* computation : module->computations()) {
    if (schedule.is_computation_scheduled(computation)) {
      own_schedule->set_sequence(computation, schedule.sequence(computation));
    }
  }
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloLiveRange> live_range,
                       HloLiveRange::Run(*own_schedule, *alias_analysis,
                                         module->entry_computation(), true));
  std::unique_ptr<BufferAssignment> assignment(new BufferAssignment(
      module, std::move(alias_analysis), std::move(own_schedule), std::move(live_range),
      std::move(buffer_size), std::move(color_alignment),
      options_.multiheap_size_constraint_per_heap));

  // Default colorer: the memory space of the defining position.
  for (const HloValue* value : assignment->dataflow_analysis().values()) {
    value->set_color(DefaultColorOfValue(*value));
  }

  std::vector<const HloComputation*> thread_local_computations;
  std::vector<const HloComputation*> global_computations;
  HMO_RETURN_IF_ERROR(
      GatherComputationsByAllocationType(module, &thread_local_computations, &global_computations));

  ValuesByComputation buffers_to_assign_sequentially;
  HMO_RETURN_IF_ERROR(AssignBuffersForComputations(global_computations, /*is_thread_local=*/false,
                                                   &buffers_to_assign_sequentially,
                                                   assignment.get()));
  const bool run_whole_module_heap_simulation =
      buffers_to_assign_sequentially.size() == global_computations.size();
  HMO_RETURN_IF_ERROR(AssignBuffersWithSequentialOrdering(
      buffers_to_assign_sequentially, run_whole_module_heap_simulation, assignment.get()));

  std::vector<const HloComputation*> thread_local_no_fusion;
  for (const HloComputation* computation : thread_local_computations) {
    if (!computation->IsFusionComputation()) thread_local_no_fusion.push_back(computation);
  }
  HMO_RETURN_IF_ERROR(AssignBuffersForComputations(thread_local_no_fusion, /*is_thread_local=*/true,
                                                   nullptr, assignment.get()));

  for (const HloBuffer* buffer : assignment->alias_analysis().LiveOutBuffers()) {
    if (assignment->HasAllocation(*buffer)) {
      assignment->allocations_[assignment->allocation_index_for_value_.at(buffer->values()[0])]
          .maybe_live_out_ = true;
    }
  }
  HMO_RETURN_IF_ERROR(assignment->CombineTempAllocations());
  assignment->ComputeSummaryStats();
  return assignment;
}

}  // namespace hmo
