#ifndef HMO_ANALYSIS_HEAP_FREE_CHUNKS_MANAGER_H_
#define HMO_ANALYSIS_HEAP_FREE_CHUNKS_MANAGER_H_

// FreeChunksManager: the free byte ranges of one heap, for the start-time
// sweeps of the constrained heap's kFastMerge / kFastSplit strategies (XLA's
// FreeChunksManager). Free ranges never touch or overlap; each knows the first
// aligned offset inside it.

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace hmo {

class FreeChunksManager {
 public:
  // The end of the initially free range [0, kFreeSpaceEnd).
  static constexpr int64_t kFreeSpaceEnd = std::numeric_limits<int64_t>::max() - 3;

  struct MemoryChunk {
    int64_t offset = 0;
    int64_t end = 0;             // exclusive
    int64_t aligned_offset = 0;  // the first aligned offset >= offset
    int64_t aligned_size() const { return end - aligned_offset; }
    friend bool operator==(const MemoryChunk& a, const MemoryChunk& b) {
      return a.offset == b.offset && a.end == b.end;
    }
  };

  // `align_up(x)` returns the smallest aligned offset >= x.
  explicit FreeChunksManager(std::function<int64_t(int64_t)> align_up);

  // Marks [offset, end) used. It must lie inside one free range; the parts of
  // that range on either side stay free. FailedPrecondition otherwise.
  absl::Status Allocate(int64_t offset, int64_t end);

  // Marks [offset, end) free, merging it with free ranges it touches or
  // overlaps on either side.
  void Deallocate(int64_t offset, int64_t end);

  // The free range with the smallest aligned size >= `size` (lowest offset on
  // ties), or nullopt.
  std::optional<MemoryChunk> FindJustLargeEnough(int64_t size) const;

  // Every free range, by offset.
  std::vector<MemoryChunk> GetFreeChunks() const;

 private:
  void AddFree(int64_t offset, int64_t end);
  void RemoveFree(std::map<int64_t, int64_t>::iterator it);

  std::function<int64_t(int64_t)> align_up_;
  std::map<int64_t, int64_t> by_offset_;           // offset -> end
  std::set<std::pair<int64_t, int64_t>> by_size_;  // (aligned size, offset)
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_FREE_CHUNKS_MANAGER_H_
