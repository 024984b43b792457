#ifndef HMO_ANALYSIS_BUFFER_ASSIGNMENT_H_
#define HMO_ANALYSIS_BUFFER_ASSIGNMENT_H_

// BufferAssignment: every HloBuffer of a scheduled module placed in a
// BufferAllocation, a block of memory of one memory space ("color") the
// runtime allocates (XLA's xla/service/buffer_assignment.h).
//
// BufferAssigner::Run, as XLA's CreateAssignment:
//  1. Alias analysis; each value is colored with the memory space of its
//     defining position's layout (S(n), 0 when absent).
//  2. Computations are split into global ones (the entry and what call /
//     while / conditional / async reach) and thread-local ones (what fusion,
//     reduce, map, sort, scatter, custom-call, ... apply).
//  3. Buffers of global computations, in order (size descending, live-out
//     first, post-order position, id), each get:
//       constant           -> its own constant allocation (only when
//                             allocate_buffers_for_constants), else none;
//       entry parameter    -> its own parameter allocation (aliased to an
//                             output when input_output_alias says so);
//       tuple-shaped value -> its own tuple allocation;
//       otherwise          -> an operand's allocation or an earlier
//                             (live-out / aliased-parameter) allocation when
//                             live ranges allow, else, when it does not live
//                             out and its computation is scheduled, it is
//                             left for the heap simulation, else its own
//                             allocation.
//  4. The left-over ("temp") values are packed per color by a whole-module
//     heap simulation (per computation when some global computation has no
//     sequence); each heap becomes an allocation with the chunk offsets.
//  5. Buffers of thread-local computations (not fusions) each get a
//     thread-local allocation.
//  6. Allocations holding an entry-result buffer are marked maybe_live_out.
//  7. Temp allocations of one color are combined end to end (aligned) into
//     one allocation per color (more when a per-heap size limit is set).
//
// The heap algorithm of step 4 is XLA's by default (the better of the
// spatial and temporal constrained best fit). kBest additionally tries the
// other packing-search candidates and hmo's tight packer and keeps the first
// strictly smallest result, so it never loses to XLA and equals XLA's
// placement when nothing beats it.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/alias_info.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_live_range.h"
#include "hmo/analysis/tight_packing_solver.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {

class BufferAllocation {
 public:
  using Index = int64_t;
  struct OffsetSize {
    int64_t offset = 0;
    int64_t size = 0;
  };

  BufferAllocation(Index index, int64_t size, int64_t color)
      : index_(index), size_(size), color_(color) {}

  Index index() const { return index_; }
  int64_t size() const { return size_; }
  // The memory space.
  int64_t color() const { return color_; }

  bool is_thread_local() const { return is_thread_local_; }
  bool is_tuple() const { return is_tuple_; }
  bool is_constant() const { return is_constant_; }
  bool is_entry_computation_parameter() const { return is_entry_computation_parameter_; }
  bool is_parameter_aliased_with_output() const { return is_parameter_aliased_with_output_; }
  // Precondition: is_entry_computation_parameter().
  int64_t parameter_number() const { return parameter_number_; }
  const ShapeIndex& param_shape_index() const { return param_shape_index_; }
  bool maybe_live_out() const { return maybe_live_out_; }
  // Read-only: a parameter the caller keeps, or a constant.
  bool is_readonly() const {
    return (is_entry_computation_parameter_ && !is_parameter_aliased_with_output_) || is_constant_;
  }
  // Other buffers may be placed in it (not thread-local, not a tuple table).
  bool is_reusable() const { return !is_thread_local_ && !is_tuple_; }
  // Scratch memory owned by the executable: not a parameter, output,
  // thread-local or constant allocation.
  bool IsPreallocatedTempBuffer() const {
    return !is_entry_computation_parameter_ && !maybe_live_out_ && !is_thread_local_ &&
           !is_constant_;
  }

  const absl::flat_hash_map<const HloValue*, OffsetSize>& assigned_buffers() const {
    return assigned_buffers_;
  }
  // The assigned values with their places, sorted by value id.
  std::vector<std::pair<const HloValue*, OffsetSize>> SortedAssignedBuffers() const;
  // Values live at the earliest moment of peak use (sorted by id).
  const std::vector<const HloValue*>& PeakMemoryLogicalBuffers() const { return peak_buffers_; }
  // Traces of the heap simulations that produced this allocation.
  const std::vector<HeapSimulatorTrace>& HeapTraces() const { return heap_traces_; }

  // "allocation 3: size 64, parameter 0, shape |f32[16]| at ShapeIndex {}:"
  // followed by one line per assigned value.
  std::string ToString() const;

 private:
  friend class BufferAssignment;
  friend class BufferAssigner;

  absl::Status AddAssignment(const HloValue& value, int64_t offset, int64_t size);

  Index index_;
  int64_t size_;
  int64_t color_;
  bool is_thread_local_ = false;
  bool is_tuple_ = false;
  bool is_constant_ = false;
  bool is_entry_computation_parameter_ = false;
  bool is_parameter_aliased_with_output_ = false;
  int64_t parameter_number_ = 0;
  ShapeIndex param_shape_index_;
  bool maybe_live_out_ = false;
  absl::flat_hash_map<const HloValue*, OffsetSize> assigned_buffers_;
  std::vector<const HloValue*> peak_buffers_;
  std::vector<HeapSimulatorTrace> heap_traces_;
};

// One heap simulation of step 4 (per color; per computation in the fallback).
struct TempHeapSummary {
  int64_t color = 0;
  // Size of the placement chosen.
  int64_t heap_size = 0;
  // The most bytes live at once, a group of buffer-sharing values counted
  // once: no placement of this schedule can be smaller.
  int64_t lower_bound = 0;
  // What XLA's default (spatial / temporal best fit) reaches.
  int64_t xla_heap_size = 0;
  // The candidate that produced heap_size, e.g. "best-fit-spatial".
  std::string algorithm;
  int64_t value_count = 0;
};

class BufferAssignment {
 public:
  // XLA's BufferAssignment::Stats.
  struct Stats {
    int64_t parameter_allocation_count = 0;
    int64_t parameter_allocation_bytes = 0;
    int64_t constant_allocation_count = 0;
    int64_t constant_allocation_bytes = 0;
    int64_t maybe_live_out_allocation_count = 0;
    int64_t maybe_live_out_allocation_bytes = 0;
    int64_t preallocated_temp_allocation_count = 0;
    int64_t preallocated_temp_allocation_bytes = 0;
    // XLA's figure: heap size minus the NoFragmentationStatsHeap peak, summed
    // over the heap simulations; -1 when none ran. Negative when values share
    // buffers (that peak counts a sharing value again).
    int64_t preallocated_temp_fragmentation_bytes = -1;
    int64_t total_allocation_count = 0;
    int64_t total_allocation_bytes = 0;
  };

  const HloModule& module() const { return *module_; }
  const HloAliasAnalysis& alias_analysis() const { return *alias_analysis_; }
  const HloDataflowAnalysis& dataflow_analysis() const { return alias_analysis_->dataflow_analysis(); }
  const HloLiveRange& hlo_live_range() const { return *hlo_live_range_; }
  // The schedule the assignment was computed for.
  const HloSchedule& schedule() const { return *schedule_; }

  // Allocations by index.
  const std::vector<BufferAllocation>& Allocations() const { return allocations_; }
  const BufferAllocation& GetAllocation(BufferAllocation::Index index) const {
    return allocations_.at(index);
  }
  bool HasAllocation(const HloValue& value) const {
    return allocation_index_for_value_.contains(&value);
  }
  bool HasAllocation(const HloBuffer& buffer) const { return HasAllocation(*buffer.values()[0]); }
  // Precondition: HasAllocation(value).
  const BufferAllocation& GetAssignedAllocation(const HloValue& value) const;
  // The (allocation index, offset, size) of each value at the position that
  // has an allocation, sorted.
  struct Slice {
    BufferAllocation::Index index = -1;
    int64_t offset = 0;
    int64_t size = 0;
    bool operator<(const Slice& o) const {
      return std::tie(index, offset, size) < std::tie(o.index, o.offset, o.size);
    }
    bool operator==(const Slice& o) const {
      return index == o.index && offset == o.offset && size == o.size;
    }
  };
  std::set<Slice> GetAllSlices(const HloInstruction* instruction, const ShapeIndex& index) const;

  // Bytes of a buffer: the largest of its values' sizes.
  int64_t HloBufferSize(const HloBuffer& buffer) const;
  // Bytes of a value under the assignment's size function.
  int64_t BufferSize(const HloValue& value) const { return buffer_size_(value); }

  const Stats& GetStats() const { return stats_; }
  // One entry per heap simulation, in the order they ran.
  const std::vector<TempHeapSummary>& temp_heaps() const { return temp_heaps_; }

  // Every allocation with its values (debugging aid).
  std::string ToString() const;

 private:
  friend class BufferAssigner;
  BufferAssignment(const HloModule* module, std::unique_ptr<HloAliasAnalysis> alias_analysis,
                   std::unique_ptr<HloSchedule> schedule, std::unique_ptr<HloLiveRange> live_range,
                   BufferSizeFunction buffer_size, std::function<int64_t(int64_t)> color_alignment,
                   int64_t multiheap_size_constraint_per_heap);

  BufferAllocation* NewEmptyAllocation(int64_t size, int64_t color);
  absl::StatusOr<BufferAllocation*> NewAllocation(const HloBuffer& buffer, int64_t size);
  absl::Status AddAssignment(BufferAllocation* allocation, const HloBuffer& buffer, int64_t offset,
                             int64_t size);
  absl::Status AddAssignment(BufferAllocation* allocation, const HloValue& value, int64_t offset,
                             int64_t size);
  absl::Status CombineTempAllocations();
  void ComputeSummaryStats();

  const HloModule* module_;
  std::unique_ptr<HloAliasAnalysis> alias_analysis_;
  std::unique_ptr<HloSchedule> schedule_;
  std::unique_ptr<HloLiveRange> hlo_live_range_;
  BufferSizeFunction buffer_size_;
  std::function<int64_t(int64_t)> color_alignment_;
  int64_t multiheap_size_constraint_per_heap_;
  std::vector<BufferAllocation> allocations_;
  absl::flat_hash_map<const HloValue*, BufferAllocation::Index> allocation_index_for_value_;
  mutable absl::flat_hash_map<HloBuffer::Id, int64_t> cached_buffer_sizes_;
  std::vector<TempHeapSummary> temp_heaps_;
  Stats stats_;
};

// Which heap algorithm packs the temp buffers (step 4).
enum class TempHeapAlgorithm {
  // XLA's: ChooseBest(constrained best fit kSpatial, kTemporal).
  kXla,
  // XLA's CreateHeapWithPackingSearch: {best fit, lowest offset} x {spatial,
  // temporal, spatial-temporal}.
  kPackingSearch,
  // XLA's two, the rest of the packing search, then hmo's TightPackingHeap;
  // the first strictly smallest wins.
  kBest,
};

class AllocationLiveRanges;

class BufferAssigner {
 public:
  enum class BufferOrder { kBiggestFirst, kTopological };

  struct Options {
    bool allocate_buffers_for_constants = false;
    BufferOrder buffer_order = BufferOrder::kBiggestFirst;
    TempHeapAlgorithm heap_algorithm = TempHeapAlgorithm::kXla;
    // Soft limit on one temp heap's size; -1 = unlimited (XLA's default).
    int64_t multiheap_size_constraint_per_heap = -1;
    // For kBest.
    TightPackingOptions tight_packing;
  };

  // Assigns buffers of `module` under `schedule` (a sequence per non-fusion
  // computation; computations without one get allocations of their own).
  // `buffer_size` gives each value's bytes; `color_alignment` each memory
  // space's alignment. `alias_info` null = default rules.
  static absl::StatusOr<std::unique_ptr<BufferAssignment>> Run(
      const HloModule* module, const HloSchedule& schedule, BufferSizeFunction buffer_size,
      std::function<int64_t(int64_t color)> color_alignment, Options options,
      const AliasInfo* alias_info = nullptr);

 private:
  using ValuesByComputation =
      absl::flat_hash_map<const HloComputation*, absl::flat_hash_set<const HloValue*>>;

  BufferAssigner(Options options, const AliasInfo* alias_info)
      : options_(std::move(options)), alias_info_(alias_info) {}

  absl::StatusOr<std::unique_ptr<BufferAssignment>> CreateAssignment(
      const HloModule* module, const HloSchedule& schedule, BufferSizeFunction buffer_size,
      std::function<int64_t(int64_t)> color_alignment);
  absl::Status AssignBuffersForComputations(
      const std::vector<const HloComputation*>& computations, bool is_thread_local,
      ValuesByComputation* buffers_to_assign_sequentially, BufferAssignment* assignment);
  absl::Status AssignSingleHloBuffer(const HloBuffer* buffer, bool is_thread_local,
                                     ValuesByComputation* buffers_to_assign_sequentially,
                                     std::vector<BufferAllocation::Index>* allocation_indices,
                                     AllocationLiveRanges* assigned_ranges,
                                     BufferAssignment* assignment);
  absl::StatusOr<bool> MaybeAssignBuffer(BufferAllocation::Index allocation_index,
                                         const HloBuffer& buffer,
                                         AllocationLiveRanges* assigned_ranges,
                                         BufferAssignment* assignment);
  bool LiveRangeInterferes(const HloValue* buffer1, const HloValue* buffer2,
                           const BufferAssignment* assignment) const;
  absl::Status AssignBuffersWithSequentialOrdering(
      const ValuesByComputation& buffers_to_assign_sequentially,
      bool run_whole_module_heap_simulation, BufferAssignment* assignment);
  absl::Status RunTempHeapSimulation(const absl::flat_hash_set<const HloValue*>& values,
                                     int64_t color, const HloComputation* computation,
                                     const HloInstructionSequence* sequence,
                                     const HloSchedule& schedule, BufferAssignment* assignment);

  Options options_;
  const AliasInfo* alias_info_;
};

// The color XLA's default colorer gives a value: the memory space in the
// layout of its defining position (0 without a layout).
int64_t DefaultColorOfValue(const HloValue& value);

}  // namespace hmo

#endif  // HMO_ANALYSIS_BUFFER_ASSIGNMENT_H_
