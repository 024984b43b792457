#include "hmo/gpu/collective_allocation.h"

#include <cstdint>

#include "absl/strings/str_cat.h"

namespace hmo::gpu {

absl::string_view CollectiveMemoryKindName(CollectiveMemoryKind kind) {
  switch (kind) {
    case CollectiveMemoryKind::kSymmetric: return "symmetric";
    case CollectiveMemoryKind::kMulticast: return "multicast";
  }
  return "unknown";
}

std::string CollectiveMemoryRequest::ToString() const {
  return absl::StrCat("#", allocation_index, ": ", size, " bytes ",
                      CollectiveMemoryKindName(kind));
}

bool CollectiveAllocation::Contains(const void* address) const {
  const auto begin = reinterpret_cast<uintptr_t>(local);
  const auto at = reinterpret_cast<uintptr_t>(address);
  return local != nullptr && at >= begin && at - begin < request.size;
}

}  // namespace hmo::gpu
