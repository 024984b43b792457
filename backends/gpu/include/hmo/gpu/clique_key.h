#ifndef HMO_GPU_CLIQUE_KEY_H_
#define HMO_GPU_CLIQUE_KEY_H_

// The identity of a communicator clique: the set of participating devices
// (kept sorted, so the same set always makes the same key) plus the kind and
// id of the stream its collectives run on. A device's rank in the clique is
// its position in the sorted device list; rank 0 is the lowest device id.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace hmo::gpu {

// A device id unique across all processes of a job.
using GlobalDeviceId = int64_t;

// Which kind of stream a clique's operations are issued on; cliques on
// different streams over the same devices are different cliques.
enum class CollectiveStreamKind {
  kCollective,  // all-reduce, all-gather, ...
  kP2P,         // send / recv, collective-permute
  kMemcpy,      // peer-to-peer copies
};

absl::string_view CollectiveStreamKindName(CollectiveStreamKind kind);

class CliqueKey {
 public:
  // INVALID_ARGUMENT for an empty device list, a negative id or a device
  // listed twice. `devices` may be in any order.
  static absl::StatusOr<CliqueKey> Create(std::vector<GlobalDeviceId> devices,
                                          CollectiveStreamKind stream_kind =
                                              CollectiveStreamKind::kCollective,
                                          int64_t stream_id = 0);

  // Sorted ascending.
  absl::Span<const GlobalDeviceId> devices() const { return devices_; }
  int num_ranks() const { return static_cast<int>(devices_.size()); }
  CollectiveStreamKind stream_kind() const { return stream_kind_; }
  int64_t stream_id() const { return stream_id_; }

  // The rank of `device`, or nullopt when it is not in the clique.
  std::optional<int> RankOf(GlobalDeviceId device) const;
  // The device at `rank`; requires 0 <= rank < num_ranks().
  GlobalDeviceId DeviceAt(int rank) const { return devices_[rank]; }

  // "clique[0,1,2,3]/collective:0"
  std::string ToString() const;

  friend bool operator==(const CliqueKey& a, const CliqueKey& b) {
    return a.devices_ == b.devices_ && a.stream_kind_ == b.stream_kind_ &&
           a.stream_id_ == b.stream_id_;
  }
  friend bool operator!=(const CliqueKey& a, const CliqueKey& b) { return !(a == b); }
  // A total order (devices, then stream kind, then stream id), used to
  // process several cliques in the same order on every rank.
  friend bool operator<(const CliqueKey& a, const CliqueKey& b) {
    if (a.devices_ != b.devices_) return a.devices_ < b.devices_;
    if (a.stream_kind_ != b.stream_kind_) return a.stream_kind_ < b.stream_kind_;
    return a.stream_id_ < b.stream_id_;
  }

  template <typename H>
  friend H AbslHashValue(H h, const CliqueKey& key) {
    return H::combine(std::move(h), key.devices_, key.stream_kind_, key.stream_id_);
  }

 private:
  CliqueKey(std::vector<GlobalDeviceId> devices, CollectiveStreamKind stream_kind,
            int64_t stream_id)
      : devices_(std::move(devices)), stream_kind_(stream_kind), stream_id_(stream_id) {}

  std::vector<GlobalDeviceId> devices_;
  CollectiveStreamKind stream_kind_;
  int64_t stream_id_;
};

}  // namespace hmo::gpu

#endif  // HMO_GPU_CLIQUE_KEY_H_
