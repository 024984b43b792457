#ifndef HMO_GPU_SYMMETRIC_LAYOUT_H_
#define HMO_GPU_SYMMETRIC_LAYOUT_H_

// Where each collective allocation lives in a rank's symmetric heap. Every
// rank lays out the same (sorted) requests the same way, which is what makes
// the offsets symmetric.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/gpu/collective_allocation.h"

namespace hmo::gpu {

struct SymmetricLayout {
  std::vector<uint64_t> offsets;  // one per request, in request order
  uint64_t heap_size = 0;         // bytes each rank needs
};

// Packs `requests` in order, each at the next multiple of `alignment` (a
// power of two). INVALID_ARGUMENT for a bad alignment; RESOURCE_EXHAUSTED
// when the heap size overflows 64 bits.
absl::StatusOr<SymmetricLayout> LayOutSymmetricHeap(
    absl::Span<const CollectiveMemoryRequest> requests, uint64_t alignment);

}  // namespace hmo::gpu

#endif  // HMO_GPU_SYMMETRIC_LAYOUT_H_
