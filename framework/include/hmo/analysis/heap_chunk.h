#ifndef HMO_ANALYSIS_HEAP_CHUNK_H_
#define HMO_ANALYSIS_HEAP_CHUNK_H_

// A contiguous byte range [offset, offset + size) of a simulated heap: the
// place a heap algorithm assigns to one buffer. Mirrors XLA's
// HeapSimulator::Chunk.

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/strings/str_cat.h"

namespace hmo {

struct HeapChunk {
  int64_t offset = -1;
  int64_t size = 0;

  static constexpr HeapChunk FromOffsetSize(int64_t offset, int64_t size) {
    return HeapChunk{offset, size};
  }
  static constexpr HeapChunk FromOffsetEnd(int64_t offset, int64_t end) {
    return HeapChunk{offset, end - offset};
  }

  // One past the last byte of the chunk.
  constexpr int64_t chunk_end() const { return offset + size; }

  // Whether the two half-open byte ranges share a byte. Both chunks must have
  // a non-zero size (as in XLA, where a zero-size chunk is a programming error
  // here); a zero-size chunk overlaps nothing.
  constexpr bool OverlapsWith(const HeapChunk& other) const {
    return size != 0 && other.size != 0 && offset < other.chunk_end() &&
           other.offset < chunk_end();
  }

  // "[offset,end)".
  std::string ToString() const { return absl::StrCat("[", offset, ",", chunk_end(), ")"); }

  friend constexpr bool operator==(const HeapChunk& a, const HeapChunk& b) {
    return a.offset == b.offset && a.size == b.size;
  }
  friend std::ostream& operator<<(std::ostream& os, const HeapChunk& chunk) {
    return os << chunk.ToString();
  }
};

// Rounds `value` (>= 0) up to a multiple of `alignment` (> 0). A power of two
// uses the mask form, anything else a division, exactly as XLA's heap does.
constexpr int64_t AlignHeapOffsetUp(int64_t value, int64_t alignment) {
  if (alignment == 1) return value;
  if ((alignment & (alignment - 1)) == 0) return (value + alignment - 1) & ~(alignment - 1);
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_CHUNK_H_
