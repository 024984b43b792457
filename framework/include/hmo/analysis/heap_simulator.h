#ifndef HMO_ANALYSIS_HEAP_SIMULATOR_H_
#define HMO_ANALYSIS_HEAP_SIMULATOR_H_

// HeapSimulator: replays a scheduled module as a stream of Alloc / Free /
// ShareWith events into a heap algorithm (heap_algorithm.h) and returns the
// algorithm's placement (XLA's xla/service/heap_simulator/heap_simulator.h,
// the HLO-side driver; the algorithms live in best_fit_*.h, heap_*.h,
// tight_packing_*.h).
//
// Event generation (XLA's RunComputation):
//  1. Live ranges come from HloLiveRange. Tracked values: those with a live
//     range that press on the heap (not constants unless alloc_constants; in
//     buffers_to_assign when given), sorted by (start, end, id); each is
//     defined at its start time and freed at its end time.
//  2. The values of one HloBuffer form a group of the buffer's size.
//  3. At each time t, for each value v defined at t:
//     a. another value of v's HloBuffer is already placed: ShareWith(v, that
//        first value);
//     b. else, when may_reuse_operand_buffers and v's buffer holds only v: the
//        first operand value ov (operands in order, each operand's top-level
//        values by id) whose buffer holds only ov, whose range ends at t, that
//        is tracked and still due to be freed at t, whose defining instruction
//        v's instruction uses directly, v's instruction not being a copy, and
//        CanShareOperandBufferWithUser(ov, v): Free(ov) now, ShareWith(v, ov),
//        ov's range extended to v's end;
//     c. else Alloc(v).
//     Then Free every value still due at t, in sorted order.
//  4. Sizes: a group's size; ShareWith passes the merged group's size (the
//     larger of the two).
// A NoFragmentationStatsHeap shadows every run; fragmentation_size is the
// algorithm's heap size minus that peak.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/alias_info.h"
#include "hmo/analysis/heap_algorithm.h"
#include "hmo/analysis/heap_chunk.h"
#include "hmo/analysis/heap_result.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_live_range.h"
#include "hmo/analysis/hlo_value.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {

// The events a heap simulation produced, in order (XLA's HeapSimulatorTrace).
struct HeapSimulatorTrace {
  struct Event {
    enum Kind { kAlloc, kFree, kShareWith };
    Kind kind = kAlloc;
    HloValue::Id buffer_id = -1;
    std::string computation_name;
    std::string instruction_name;
    // For kShareWith: the value shared with; -1 otherwise.
    HloValue::Id share_with_canonical_id = -1;
  };
  std::vector<Event> events;
  bool whole_module_simulation = false;
};

// Bytes of a value's buffer.
using BufferSizeFunction = std::function<int64_t(const HloValue&)>;

// ShapeUtil::ByteSizeOf of the value's shape (tuples: pointer_size per
// element).
BufferSizeFunction ByteSizeOfValue(int64_t pointer_size = 8);

// ByteSizeOfValue, but 0 for a value in host memory (memory space
// Layout::kHostMemorySpace, S(5)): the size function of the device-memory
// objective, under which offloading a value to the host frees its device
// bytes (a schedule that moves it out early and back late is better).
BufferSizeFunction DeviceByteSizeOfValue(int64_t pointer_size = 8);

struct HeapSimulatorOptions {
  // Let a value take over an operand's buffer that dies at its definition.
  bool may_reuse_operand_buffers = true;
  // Give constants heap space.
  bool alloc_constants = false;
  // Only these values take heap space (null = all).
  const absl::flat_hash_set<const HloValue*>* buffers_to_assign = nullptr;
};

class HeapSimulator {
 public:
  using Chunk = HeapChunk;
  using Algorithm = HeapAlgorithm<const HloValue*>;

  using Options = HeapSimulatorOptions;

  struct Result {
    std::vector<HeapResult<const HloValue*>> heap_results;
    int64_t heap_size = 0;
    int64_t fragmentation_size = 0;
    HeapSimulatorTrace debug_trace;
  };

  // The peak of bytes live at once over the whole module (a lower bound for
  // any packing of this schedule); 0 for an empty schedule.
  static absl::StatusOr<int64_t> MinimumMemoryForModule(const HloSchedule& schedule,
                                                        const HloAliasAnalysis& alias_analysis,
                                                        const BufferSizeFunction& size_fn,
                                                        const AliasInfo* alias_info = nullptr);
  // The same for one computation scheduled as `sequence` (subcomputations not
  // included).
  static absl::StatusOr<int64_t> MinimumMemoryForComputation(
      const HloComputation& computation, const HloInstructionSequence& sequence,
      const HloAliasAnalysis& alias_analysis, const BufferSizeFunction& size_fn,
      const AliasInfo* alias_info = nullptr);

  // Whole-module simulation from the entry computation (module-scoped live
  // ranges).
  static absl::StatusOr<Result> Run(std::unique_ptr<Algorithm> algorithm, const HloModule& module,
                                    const HloSchedule& schedule,
                                    const HloAliasAnalysis& alias_analysis,
                                    const BufferSizeFunction& size_fn,
                                    const Options& options = Options(),
                                    const AliasInfo* alias_info = nullptr);
  // One computation on its own (computation-scoped live ranges).
  static absl::StatusOr<Result> Run(std::unique_ptr<Algorithm> algorithm,
                                    const HloComputation& computation,
                                    const HloInstructionSequence& sequence,
                                    const HloAliasAnalysis& alias_analysis,
                                    const BufferSizeFunction& size_fn,
                                    const Options& options = Options(),
                                    const AliasInfo* alias_info = nullptr);
  // `computation` with module-scoped live ranges over `schedule`.
  static absl::StatusOr<Result> Run(std::unique_ptr<Algorithm> algorithm,
                                    const HloComputation& computation,
                                    const HloSchedule& schedule,
                                    const HloAliasAnalysis& alias_analysis,
                                    const BufferSizeFunction& size_fn, const Options& options,
                                    const AliasInfo* alias_info = nullptr);

 private:
  HeapSimulator(std::unique_ptr<Algorithm> algorithm, const BufferSizeFunction& size_fn,
                const Options& options, const AliasInfo* alias_info);
  ~HeapSimulator();

  absl::Status RunComputation(const HloAliasAnalysis& alias_analysis, HloLiveRange* live_range);
  absl::StatusOr<Result> Finish();

  bool IsHeapPressureImpacting(const HloValue* value) const;
  void Alloc(const HloValue* value);
  void Free(const HloValue* value);
  void ShareBuffer(const HloValue* value, const HloValue* shared);
  // Union-find over value groups; a merge keeps the first argument's size.
  int32_t FindGroup(int32_t group);
  int64_t GetBufferSize(const HloValue* value);
  void MergeGroups(const HloValue* into_value_of, const HloValue* other);
  void AddTrace(HeapSimulatorTrace::Event::Kind kind, const HloValue* value,
                const HloValue* share_with);

  std::unique_ptr<Algorithm> no_fragmentation_stats_;
  std::unique_ptr<Algorithm> algorithm_;
  BufferSizeFunction size_fn_;
  Options options_;
  const AliasInfo* alias_info_;
  absl::flat_hash_map<const HloValue*, int32_t> group_of_;
  std::vector<int32_t> group_parent_;
  std::vector<int32_t> group_rank_;
  std::vector<int64_t> group_size_;
  HeapSimulatorTrace debug_trace_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_SIMULATOR_H_
