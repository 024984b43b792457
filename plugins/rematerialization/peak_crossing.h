#ifndef HMO_PLUGINS_REMATERIALIZATION_PEAK_CROSSING_H_
#define HMO_PLUGINS_REMATERIALIZATION_PEAK_CROSSING_H_

// Values that cross a memory peak of a scheduled computation only to wait
// for a later use: what recomputation and host offload both act on, and how
// each finds the uses on either side of the peak.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {

// Each instruction's position in a sequence.
using SequencePositions = absl::flat_hash_map<const HloInstruction*, int64_t>;
SequencePositions PositionsIn(const HloInstructionSequence& sequence);

// The values of `computation` defined before `peak_position` of its
// sequence, not used at it and used after it, in schedule order, with the
// positions of the sequence. Empty when the computation is not scheduled.
struct PeakCrossing {
  std::vector<const HloInstruction*> values;
  SequencePositions positions;
};
PeakCrossing FindValuesCrossingPeak(const HloModule& module, const HloComputation& computation,
                                    int64_t peak_position);

// A computation of `module` named `name`, with its sequence, to rewrite.
// Errors: no such computation; it is not scheduled.
struct ScheduledComputation {
  HloComputation* computation = nullptr;
  HloInstructionSequence* sequence = nullptr;
  SequencePositions positions;
};
absl::StatusOr<ScheduledComputation> FindScheduledComputation(HloModule& module,
                                                              const std::string& name);

// The uses of `value` on either side of the peak: its distinct users after
// it, the first position among them, and the last position before the peak
// at which the value is defined or used. Error: no use after the peak.
struct UsesAroundPeak {
  std::vector<HloInstruction*> later_users;
  int64_t first_after = 0;
  int64_t last_before = 0;
};
absl::StatusOr<UsesAroundPeak> FindUsesAroundPeak(HloInstruction& value,
                                                  const SequencePositions& positions,
                                                  int64_t peak_position);

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_PEAK_CROSSING_H_
