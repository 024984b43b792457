#ifndef HMO_ANALYSIS_ALLOCATION_LIVE_RANGES_H_
#define HMO_ANALYSIS_ALLOCATION_LIVE_RANGES_H_

// AllocationLiveRanges: the live ranges of the values assigned to each
// allocation, so that BufferAssigner::MaybeAssignBuffer tests a new value
// only against the assigned values whose ranges meet its own. XLA's loop
// over every assigned value is quadratic when one allocation collects many
// values (an output allocation that thousands of short-lived values of a
// chain of fusions reuse).
//
// An allocation's entry is brought up to date from its assigned values when
// their count differs from what was indexed: values are only ever added
// during buffer assignment, so equal counts mean the same values.

#include <cstdint>
#include <utility>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/hlo_live_range.h"

namespace hmo {

class AllocationLiveRanges {
 public:
  // The values assigned to one allocation.
  class Entry {
   public:
    // Whether some assigned value has no live range (which interferes with
    // anything).
    bool has_value_without_range() const { return values_without_range_ > 0; }
    // Whether some assigned value has a position at `instruction`.
    bool HasPositionAt(const HloInstruction* instruction) const {
      return position_instructions_.contains(instruction);
    }
    // Whether `interferes(value)` holds for an assigned value whose live
    // range meets [start, end] (both inclusive); the others are not asked.
    template <typename Interferes>
    bool AnyMeeting(int64_t start, int64_t end, Interferes interferes) const {
      // Ranges that meet [start, end] start in [start - longest, end].
      auto it = by_start_.lower_bound(start - longest_);
      for (; it != by_start_.end() && it->first <= end; ++it) {
        if (it->second.first >= start && interferes(it->second.second)) return true;
      }
      return false;
    }

   private:
    friend class AllocationLiveRanges;
    void Add(const HloValue* value, const HloLiveRange& live_range);

    size_t indexed_ = 0;
    int64_t values_without_range_ = 0;
    int64_t longest_ = 0;  // the largest end - start
    // start -> (end, value)
    absl::btree_multimap<int64_t, std::pair<int64_t, const HloValue*>> by_start_;
    absl::flat_hash_set<const HloInstruction*> position_instructions_;
  };

  explicit AllocationLiveRanges(const HloLiveRange& live_range) : live_range_(live_range) {}

  // The entry of `allocation`, up to date with its assigned values.
  const Entry& Get(const BufferAllocation& allocation);
  // Records that `values` were just assigned to `allocation`.
  void Added(const BufferAllocation& allocation, absl::Span<const HloValue* const> values);

 private:
  const HloLiveRange& live_range_;
  absl::flat_hash_map<BufferAllocation::Index, Entry> entries_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_ALLOCATION_LIVE_RANGES_H_
