#ifndef HMO_COLLECTIVES_SRC_COLLECTIVE_COMPUTATION_H_
#define HMO_COLLECTIVES_SRC_COLLECTIVE_COMPUTATION_H_

// What every transport does once it can read its peers' send buffers: the
// receive buffers of one device (collective_plan.h), computed from them.

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hmo/collectives/collective_plan.h"

namespace hmo::collectives {

// The devices that meet for `plan` as `device`, in rank order (its group,
// or every device for a collective-permute), and its rank among them.
struct Meeting {
  std::vector<int64_t> members;
  int rank = 0;
  int ranks() const { return static_cast<int>(members.size()); }
};
Meeting MeetingOf(const CollectivePlan& plan, int64_t device);

// Whether one of `receive` overlaps one of `send` (the receive buffers are
// then written through temporaries).
bool ReceiveOverlapsSend(const CollectivePlan& plan, absl::Span<const void* const> send,
                         absl::Span<void* const> receive);

// Writes `out` (plan.receive_bytes each) for `device`, member `rank` of
// MeetingMembers, from peer(r, i): member r's send buffer i.
absl::Status ComputeReceive(const CollectivePlan& plan, int64_t device, int rank, int ranks,
                            const std::function<const char*(int member, size_t buffer)>& peer,
                            absl::Span<char* const> out);

// Where a device writes its receive buffers: the buffers themselves, or
// temporaries when one overlaps one of its send buffers (a peer, or its own
// computation, may still read them), copied in by Finish.
class ReceiveTargets {
 public:
  ReceiveTargets(const CollectivePlan& plan, absl::Span<const void* const> send,
                 absl::Span<void* const> receive);
  absl::Span<char* const> out() const { return out_; }
  // Once nothing reads the send buffers any more.
  void Finish();

 private:
  absl::Span<void* const> receive_;
  std::vector<std::vector<char>> temporaries_;
  std::vector<char*> out_;
};

// replica-id / partition-id: writes the device's id as u32 into
// `receive[0]` and returns true; false for the collectives.
bool WriteDeviceId(const CollectivePlan& plan, int64_t device, absl::Span<void* const> receive);

}  // namespace hmo::collectives

#endif  // HMO_COLLECTIVES_SRC_COLLECTIVE_COMPUTATION_H_
