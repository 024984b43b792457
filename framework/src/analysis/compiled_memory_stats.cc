#include "hmo/analysis/compiled_memory_stats.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/layout.h"

namespace hmo {

absl::StatusOr<bool> IsHostAllocation(const BufferAllocation& allocation) {
  int64_t kind = -1;
  for (const auto& [value, offset_size] : allocation.SortedAssignedBuffers()) {
    const Shape& shape = value->defining_position().shape();
    const int64_t space =
        shape.IsArray() && shape.has_layout() ? shape.layout().memory_space() : Layout::kDefaultMemorySpace;
    const int64_t value_kind =
        space == Layout::kHostMemorySpace ? Layout::kHostMemorySpace : Layout::kDefaultMemorySpace;
    if (kind == -1) {
      kind = value_kind;
    } else if (kind != value_kind) {
      return absl::InternalError(absl::StrCat(
          "allocation ", allocation.index(),
          " mixes host and device values (expected the same memory kind for all assignments)"));
    }
  }
  if (kind == -1) kind = allocation.color() == Layout::kHostMemorySpace ? Layout::kHostMemorySpace : 0;
  return kind == Layout::kHostMemorySpace;
}

absl::Status CompiledMemoryStats::PopulateBufferStatsFromAllocations(
    const BufferAssignment& assignment) {
  argument_size_in_bytes = output_size_in_bytes = alias_size_in_bytes = temp_size_in_bytes = 0;
  host_argument_size_in_bytes = host_output_size_in_bytes = host_alias_size_in_bytes =
      host_temp_size_in_bytes = 0;
  for (const BufferAllocation& allocation : assignment.Allocations()) {
    HMO_ASSIGN_OR_RETURN(const bool is_host, IsHostAllocation(allocation));
    const int64_t size = allocation.size();
    if (allocation.is_entry_computation_parameter()) {
      (is_host ? host_argument_size_in_bytes : argument_size_in_bytes) += size;
      if (allocation.is_parameter_aliased_with_output()) {
        (is_host ? host_alias_size_in_bytes : alias_size_in_bytes) += size;
      }
    }
    if (allocation.maybe_live_out()) {
      (is_host ? host_output_size_in_bytes : output_size_in_bytes) += size;
    }
    if (allocation.IsPreallocatedTempBuffer()) {
      (is_host ? host_temp_size_in_bytes : temp_size_in_bytes) += size;
    }
  }
  return absl::OkStatus();
}

int64_t ComputePeakMemory(const BufferAssignment& assignment) {
  // One record per value with an allocation (XLA's logical buffers), with
  // the share-with chains of the trace replay.
  struct Buffer {
    int64_t size = 0;
    int ref_count = 0;
    Buffer* underlying = nullptr;
  };
  absl::flat_hash_map<HloValue::Id, Buffer> buffers;
  for (const HloValue* value : assignment.dataflow_analysis().values()) {
    if (assignment.HasAllocation(*value)) buffers[value->id()].size = assignment.BufferSize(*value);
  }
  // Parameters, constants and outputs are resident for the whole run: their
  // largest value counts once.
  int64_t memory = 0;
  for (const BufferAllocation& allocation : assignment.Allocations()) {
    if (allocation.is_thread_local() ||
        (!allocation.is_entry_computation_parameter() && !allocation.is_constant() &&
         !allocation.maybe_live_out())) {
      continue;
    }
    Buffer* largest = nullptr;
    for (const auto& [value, offset_size] : allocation.SortedAssignedBuffers()) {
      Buffer& buffer = buffers[value->id()];
      if (largest == nullptr || buffer.size > largest->size) largest = &buffer;
    }
    if (largest != nullptr && largest->size > 0) {
      ++largest->ref_count;
      memory += largest->size;
    }
  }
  int64_t peak = memory;
  auto root_of = [](Buffer* buffer) {
    while (buffer->underlying != nullptr) buffer = buffer->underlying;
    return buffer;
  };
  for (const BufferAllocation& allocation : assignment.Allocations()) {
    for (const HeapSimulatorTrace& trace : allocation.HeapTraces()) {
      for (const HeapSimulatorTrace::Event& event : trace.events) {
        auto it = buffers.find(event.buffer_id);
        if (it == buffers.end()) continue;
        Buffer* buffer = &it->second;
        switch (event.kind) {
          case HeapSimulatorTrace::Event::kAlloc:
            if (++buffer->ref_count == 1) memory += buffer->size;
            break;
          case HeapSimulatorTrace::Event::kFree: {
            Buffer* root = root_of(buffer);
            buffer->underlying = nullptr;
            if (--root->ref_count == 0) memory -= root->size;
            break;
          }
          case HeapSimulatorTrace::Event::kShareWith: {
            auto canonical = buffers.find(event.share_with_canonical_id);
            if (canonical == buffers.end()) break;
            Buffer* root = root_of(&canonical->second);
            buffer->underlying = root;
            if (++root->ref_count == 1) memory += root->size;
            break;
          }
        }
        peak = std::max(peak, memory);
      }
    }
  }
  return peak;
}

absl::StatusOr<CompiledMemoryStats> ComputeCompiledMemoryStats(const BufferAssignment& assignment) {
  CompiledMemoryStats stats;
  HMO_RETURN_IF_ERROR(stats.PopulateBufferStatsFromAllocations(assignment));
  stats.peak_memory_in_bytes = ComputePeakMemory(assignment);
  return stats;
}

}  // namespace hmo
