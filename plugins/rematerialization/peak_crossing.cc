#include "peak_crossing.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace hmo {

SequencePositions PositionsIn(const HloInstructionSequence& sequence) {
  SequencePositions positions;
  for (int64_t i = 0; i < sequence.size(); ++i) positions[sequence.instructions()[i]] = i;
  return positions;
}

PeakCrossing FindValuesCrossingPeak(const HloModule& module, const HloComputation& computation,
                                    int64_t peak_position) {
  PeakCrossing crossing;
  if (!module.has_schedule() || !module.schedule().is_computation_scheduled(&computation)) {
    return crossing;
  }
  const HloInstructionSequence& sequence = module.schedule().sequence(&computation);
  crossing.positions = PositionsIn(sequence);
  const int64_t end = std::min(peak_position, sequence.size());
  for (int64_t i = 0; i < end; ++i) {
    const HloInstruction* value = sequence.instructions()[i];
    bool used_at_peak = false, used_after = false;
    for (const HloInstruction* user : value->users()) {
      const int64_t position = crossing.positions.at(user);
      used_at_peak |= position == peak_position;
      used_after |= position > peak_position;
    }
    if (!used_at_peak && used_after) crossing.values.push_back(value);
  }
  return crossing;
}

absl::StatusOr<ScheduledComputation> FindScheduledComputation(HloModule& module,
                                                              const std::string& name) {
  HloComputation* computation = module.GetComputationWithName(name);
  if (computation == nullptr) return absl::NotFoundError(absl::StrCat("no computation ", name));
  if (!module.has_schedule() || !module.schedule().is_computation_scheduled(computation)) {
    return absl::FailedPreconditionError(absl::StrCat("computation ", name, " is not scheduled"));
  }
  HloInstructionSequence& sequence = module.schedule().GetOrCreateSequence(computation);
  return ScheduledComputation{computation, &sequence, PositionsIn(sequence)};
}

absl::StatusOr<UsesAroundPeak> FindUsesAroundPeak(HloInstruction& value,
                                                  const SequencePositions& positions,
                                                  int64_t peak_position) {
  UsesAroundPeak uses;
  uses.last_before = positions.at(&value);
  uses.first_after = static_cast<int64_t>(positions.size());
  for (HloInstruction* user : value.users()) {
    const int64_t position = positions.at(user);
    if (position < peak_position) {
      uses.last_before = std::max(uses.last_before, position);
    } else if (position > peak_position) {
      uses.first_after = std::min(uses.first_after, position);
      if (std::find(uses.later_users.begin(), uses.later_users.end(), user) ==
          uses.later_users.end()) {
        uses.later_users.push_back(user);
      }
    }
  }
  if (uses.later_users.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(value.name(), " has no use after the peak"));
  }
  return uses;
}

}  // namespace hmo
