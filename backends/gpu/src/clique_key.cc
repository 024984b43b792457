#include "hmo/gpu/clique_key.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hmo::gpu {

absl::string_view CollectiveStreamKindName(CollectiveStreamKind kind) {
  switch (kind) {
    case CollectiveStreamKind::kCollective: return "collective";
    case CollectiveStreamKind::kP2P: return "p2p";
    case CollectiveStreamKind::kMemcpy: return "memcpy";
  }
  return "unknown";
}

absl::StatusOr<CliqueKey> CliqueKey::Create(std::vector<GlobalDeviceId> devices,
                                            CollectiveStreamKind stream_kind,
                                            int64_t stream_id) {
  if (devices.empty()) return absl::InvalidArgumentError("a clique needs at least one device");
  std::sort(devices.begin(), devices.end());
  if (devices.front() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("clique device ids must be >= 0, got ", devices.front()));
  }
  auto duplicate = std::adjacent_find(devices.begin(), devices.end());
  if (duplicate != devices.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", *duplicate, " is listed twice in clique [",
                     absl::StrJoin(devices, ","), "]"));
  }
  return CliqueKey(std::move(devices), stream_kind, stream_id);
}

std::optional<int> CliqueKey::RankOf(GlobalDeviceId device) const {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), device);
  if (it == devices_.end() || *it != device) return std::nullopt;
  return static_cast<int>(it - devices_.begin());
}

std::string CliqueKey::ToString() const {
  return absl::StrCat("clique[", absl::StrJoin(devices_, ","), "]/",
                      CollectiveStreamKindName(stream_kind_), ":", stream_id_);
}

}  // namespace hmo::gpu
