#include "hmo/gpu/symmetric_layout.h"

#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hmo::gpu {

absl::StatusOr<SymmetricLayout> LayOutSymmetricHeap(
    absl::Span<const CollectiveMemoryRequest> requests, uint64_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("symmetric heap alignment ", alignment, " is not a power of two"));
  }
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  SymmetricLayout layout;
  layout.offsets.reserve(requests.size());
  uint64_t end = 0;
  for (const CollectiveMemoryRequest& request : requests) {
    if (end > kMax - (alignment - 1)) {
      return absl::ResourceExhaustedError("symmetric heap size overflows 64 bits");
    }
    const uint64_t offset = (end + alignment - 1) & ~(alignment - 1);
    if (request.size > kMax - offset) {
      return absl::ResourceExhaustedError("symmetric heap size overflows 64 bits");
    }
    layout.offsets.push_back(offset);
    end = offset + request.size;
  }
  layout.heap_size = end;
  return layout;
}

}  // namespace hmo::gpu
