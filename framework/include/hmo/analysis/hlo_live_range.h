#ifndef HMO_ANALYSIS_HLO_LIVE_RANGE_H_
#define HMO_ANALYSIS_HLO_LIVE_RANGE_H_

// HloLiveRange: logical times for a schedule and the [start, end] live range
// of every HloValue (XLA's xla/hlo/utils/hlo_live_range.h).
//
// 1. The schedule of `computation` is flattened into one sequence. In
//    module-scoped mode, before an instruction is placed, the computations it
//    runs are placed: call / conditional callees (each branch in order), a
//    while's condition then body, an async-start's wrapped computation. Each
//    computation is placed once (its first occurrence) and records its span
//    [start, end). An instruction's time is its index in the sequence;
//    schedule_end_time() is the sequence length.
// 2. A value starts at its defining instruction's time (parameters: at their
//    computation's start).
// 3. It ends at the latest of: its defining time (a root's: its computation's
//    end), every other position (roots count as their computation's end) and
//    every use. Module-scoped: a use by a call whose callee was flattened is
//    ignored (the callee's uses count instead); a use by a while is moved to
//    the body parameter, so a loop's init value dies when the body starts.
// 4. Entry parameters that are not input/output aliased live until
//    schedule_end_time().
// 5. Values inside an async computation live from the outer computation's
//    start to the async-done.
// 6. Values of one HloBuffer are made a chain: sorted by (start, end, id), each
//    range ends where the next starts and the next extends to the max end.
//
// Times are inclusive: a value is live at start and at end.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_value.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {

class HloLiveRange {
 public:
  using LogicalTime = int64_t;

  struct TimeBound {
    LogicalTime start = 0;
    LogicalTime end = 0;
    // The position that determined `end` (XLA uses it to decide whether a
    // later value may take over an operand's buffer).
    HloPosition end_position;
    bool operator==(const TimeBound& other) const {
      return start == other.start && end == other.end;
    }
  };

  // Computes live ranges of the values of `alias_analysis` under `schedule`,
  // starting from `computation` (usually the entry). Computations without a
  // sequence in the schedule are skipped and make total_order_scheduled()
  // false.
  static absl::StatusOr<std::unique_ptr<HloLiveRange>> Run(const HloSchedule& schedule,
                                                           const HloAliasAnalysis& alias_analysis,
                                                           const HloComputation* computation,
                                                           bool module_scoped_analysis = true);

  // The flattened instruction order.
  const std::vector<HloInstruction*>& flattened_instruction_sequence() const {
    return flattened_instruction_sequence_;
  }
  // Time of each flattened instruction.
  const absl::flat_hash_map<const HloInstruction*, LogicalTime>& instruction_schedule() const {
    return instruction_schedule_;
  }
  // Live range of each value defined by a flattened instruction. Mutable
  // because the heap simulator extends operand ranges when it shares buffers.
  absl::flat_hash_map<const HloValue*, TimeBound>& buffer_live_ranges() { return buffer_live_ranges_; }
  const absl::flat_hash_map<const HloValue*, TimeBound>& buffer_live_ranges() const {
    return buffer_live_ranges_;
  }
  // [start, end) of each flattened computation.
  const absl::flat_hash_map<const HloComputation*, TimeBound>& computation_span_times() const {
    return computation_span_times_;
  }
  LogicalTime schedule_end_time() const {
    return static_cast<LogicalTime>(flattened_instruction_sequence_.size());
  }
  // False when some reached computation has no sequence.
  bool total_order_scheduled() const { return total_order_scheduled_; }

  std::string ToString() const;

 private:
  HloLiveRange(const HloSchedule& schedule, const HloAliasAnalysis& alias_analysis,
               bool module_scoped_analysis)
      : schedule_(schedule), alias_analysis_(alias_analysis),
        module_scoped_analysis_(module_scoped_analysis) {}

  absl::Status FlattenSchedule(const HloComputation& computation,
                               const HloComputation* async_context);
  void CalculateBufferStartEndMap();
  std::pair<LogicalTime, HloPosition> ComputeValueLiveRangeEnd(const HloValue& value,
                                                               LogicalTime definition_end) const;
  LogicalTime GetLastUsageTime(const HloValue& value) const;
  void NormalizeAliasedBuffers();

  const HloSchedule& schedule_;
  const HloAliasAnalysis& alias_analysis_;
  bool module_scoped_analysis_;
  bool total_order_scheduled_ = true;
  std::vector<HloInstruction*> flattened_instruction_sequence_;
  absl::flat_hash_map<const HloInstruction*, LogicalTime> instruction_schedule_;
  absl::flat_hash_map<const HloComputation*, TimeBound> computation_span_times_;
  absl::flat_hash_map<const HloComputation*, const HloComputation*> computations_in_async_context_;
  absl::flat_hash_map<const HloValue*, TimeBound> buffer_live_ranges_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HLO_LIVE_RANGE_H_
