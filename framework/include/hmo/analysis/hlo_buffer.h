#ifndef HMO_ANALYSIS_HLO_BUFFER_H_
#define HMO_ANALYSIS_HLO_BUFFER_H_

// HloBuffer: a set of HloValues that must live in the same storage for the
// program to be correct (a while loop's carried values, an in-place update
// and its operand, an aliased parameter and output, ...). Built by
// HloAliasAnalysis. Distinct from incidental sharing chosen later by buffer
// assignment. XLA's xla/service/hlo_buffer.h.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/hlo_value.h"

namespace hmo {

class HloBuffer {
 public:
  using Id = int64_t;

  HloBuffer(Id id, std::vector<const HloValue*> values) : id_(id), values_(std::move(values)) {}

  Id id() const { return id_; }
  // The values, sorted by id, unique, never empty.
  const std::vector<const HloValue*>& values() const { return values_; }
  // Precondition: exactly one value.
  const HloValue& GetUniqueValue() const;

  // The common color of the values; an error when they disagree.
  absl::StatusOr<int64_t> color() const;

  // Bytes the buffer needs: the largest of its values' sizes.
  template <typename SizeFunction>
  int64_t ComputeSize(const SizeFunction& size_fn) const {
    int64_t size = 0;
    for (const HloValue* value : values_) size = std::max<int64_t>(size, size_fn(*value));
    return size;
  }

  // Every position of every value, sorted and unique.
  std::vector<HloPosition> ComputePositions() const;

  // Whether `value` takes heap space in a simulation: not a constant (unless
  // `alloc_constants`) and, when `buffers_to_assign` is given, in it.
  static bool IsHeapPressureImpacting(const HloValue& value, bool alloc_constants,
                                      const absl::flat_hash_set<const HloValue*>* buffers_to_assign);

  // "HloBuffer 3, values: <1 a>, <4 b>".
  std::string ToString() const;

  bool operator==(const HloBuffer& other) const { return id_ == other.id_; }
  bool operator!=(const HloBuffer& other) const { return !(*this == other); }

 private:
  Id id_;
  std::vector<const HloValue*> values_;
};

inline bool HloBufferIdLessThan(const HloBuffer* a, const HloBuffer* b) { return a->id() < b->id(); }

}  // namespace hmo

#endif  // HMO_ANALYSIS_HLO_BUFFER_H_
