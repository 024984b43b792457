#ifndef HMO_ANALYSIS_COMPILED_MEMORY_STATS_H_
#define HMO_ANALYSIS_COMPILED_MEMORY_STATS_H_

// CompiledMemoryStats: the memory figures PJRT reports for a compiled module
// (xla/pjrt/compiled_memory_stats.h), computed from a BufferAssignment.
//
// Each allocation counts on the host side when its values' defining
// positions are in memory space 5 (Layout::kHostMemorySpace), otherwise on
// the device side (every other space, S(1) included); an allocation without
// values uses its color. Its size then counts as:
//   argument  entry parameter allocations (alias: those aliased to an output)
//   output    maybe-live-out allocations
//   temp      preallocated temp allocations (not parameter, output,
//             thread-local or constant)
// Thread-local and constant allocations count in none of them.
//
// peak_memory_in_bytes follows XLA's ComputePeakMemory: the largest value of
// every parameter, constant and live-out allocation, plus the peak of live
// values replayed from the heap traces of the temp allocations.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "hmo/analysis/buffer_assignment.h"

namespace hmo {

struct CompiledMemoryStats {
  // Device (default and non-host memory spaces).
  int64_t generated_code_size_in_bytes = 0;
  int64_t argument_size_in_bytes = 0;
  int64_t output_size_in_bytes = 0;
  // How much of the arguments is reused for outputs.
  int64_t alias_size_in_bytes = 0;
  int64_t temp_size_in_bytes = 0;
  // Host (memory space 5).
  int64_t host_generated_code_size_in_bytes = 0;
  int64_t host_argument_size_in_bytes = 0;
  int64_t host_output_size_in_bytes = 0;
  int64_t host_alias_size_in_bytes = 0;
  int64_t host_temp_size_in_bytes = 0;
  // XLA's ComputePeakMemory over the assignment (both sides together).
  int64_t peak_memory_in_bytes = 0;

  // What users estimate as the device memory an execution needs:
  // argument + output - alias + temp + generated code.
  int64_t PeakEstimateBytes() const {
    return argument_size_in_bytes + output_size_in_bytes - alias_size_in_bytes +
           temp_size_in_bytes + generated_code_size_in_bytes;
  }
  int64_t HostPeakEstimateBytes() const {
    return host_argument_size_in_bytes + host_output_size_in_bytes - host_alias_size_in_bytes +
           host_temp_size_in_bytes + host_generated_code_size_in_bytes;
  }

  // Fills the argument/output/alias/temp counters (device and host) from the
  // allocations. Error: an allocation whose values disagree on host vs device.
  absl::Status PopulateBufferStatsFromAllocations(const BufferAssignment& assignment);
};

// All counters plus peak_memory_in_bytes; generated code sizes are 0 (hmo
// emits no code).
absl::StatusOr<CompiledMemoryStats> ComputeCompiledMemoryStats(const BufferAssignment& assignment);

// XLA's ComputePeakMemory (see above).
int64_t ComputePeakMemory(const BufferAssignment& assignment);

// Whether an allocation counts as host memory (see above).
absl::StatusOr<bool> IsHostAllocation(const BufferAllocation& allocation);

}  // namespace hmo

#endif  // HMO_ANALYSIS_COMPILED_MEMORY_STATS_H_
