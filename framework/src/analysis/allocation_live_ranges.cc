#include "allocation_live_ranges.h"

#include <algorithm>

namespace hmo {

void AllocationLiveRanges::Entry::Add(const HloValue* value, const HloLiveRange& live_range) {
  ++indexed_;
  for (const HloPosition& position : value->positions()) {
    position_instructions_.insert(position.instruction);
  }
  auto it = live_range.buffer_live_ranges().find(value);
  if (it == live_range.buffer_live_ranges().end()) {
    ++values_without_range_;
    return;
  }
  const HloLiveRange::TimeBound& range = it->second;
  longest_ = std::max<int64_t>(longest_, range.end - range.start);
  by_start_.insert({range.start, {range.end, value}});
}

const AllocationLiveRanges::Entry& AllocationLiveRanges::Get(const BufferAllocation& allocation) {
  Entry& entry = entries_[allocation.index()];
  if (entry.indexed_ != allocation.assigned_buffers().size()) {
    entry = Entry();
    for (const auto& [value, offset_size] : allocation.assigned_buffers()) {
      entry.Add(value, live_range_);
    }
  }
  return entry;
}

void AllocationLiveRanges::Added(const BufferAllocation& allocation,
                                 absl::Span<const HloValue* const> values) {
  Entry& entry = entries_[allocation.index()];
  // An entry that was already behind is rebuilt whole by the next Get.
  if (entry.indexed_ + values.size() != allocation.assigned_buffers().size()) return;
  for (const HloValue* value : values) entry.Add(value, live_range_);
}

}  // namespace hmo
