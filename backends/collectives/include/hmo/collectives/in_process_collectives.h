#ifndef HMO_COLLECTIVES_IN_PROCESS_COLLECTIVES_H_
#define HMO_COLLECTIVES_IN_PROCESS_COLLECTIVES_H_

// Running collective plans (collective_plan.h) when the devices of one run
// are threads of this process on host memory. Each collective is two
// meetings of its participants (rendezvous.h): the first exchanges every
// participant's send addresses, each then writes its own receive buffers
// from its peers' send buffers (into a temporary first when a receive
// buffer overlaps one of its send buffers), the second waits until every
// participant has finished reading, so no device overwrites a send buffer
// a peer still reads. Devices must reach a plan's collectives in the same
// order, as with NCCL; a participant that does not arrive within the
// timeout fails the others with DEADLINE_EXCEEDED naming its device, and
// one that failed (Abort) fails them at once with ABORTED at their next
// first meeting (never at a second one: a device leaving then would free
// send buffers its peers still read).

#include <cstdint>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "hmo/collectives/collective_plan.h"
#include "hmo/collectives/device_collectives.h"
#include "hmo/collectives/rendezvous.h"

namespace hmo::collectives {

class InProcessCollectives final : public DeviceCollectives {
 public:
  explicit InProcessCollectives(absl::Duration timeout = absl::Seconds(60)) : timeout_(timeout) {}
  InProcessCollectives(const InProcessCollectives&) = delete;
  InProcessCollectives& operator=(const InProcessCollectives&) = delete;

  // Runs `plan` as `device`: reads `send` (plan.send_bytes each), writes
  // `receive` (plan.receive_bytes each). Thread-safe; one call per device
  // and occurrence.
  absl::Status Run(const CollectivePlan& plan, int64_t device, absl::Span<const void* const> send,
                   absl::Span<void* const> receive) override;

  // `device` failed and will not reach its next collective: every peer
  // waiting, or arriving later, fails at once with ABORTED naming it.
  void Abort(int64_t device, const absl::Status& why);

 private:
  // How many times `device` ran `plan` before: pairs each occurrence (a
  // collective in a loop) with the peers' same one.
  int64_t NextOccurrence(const CollectivePlan& plan, int64_t device);

  absl::Duration timeout_;
  // The first meeting of each collective, which Abort fails.
  Rendezvous rendezvous_;
  // The second ("every peer has read"): never aborted, since its members
  // all passed the first and only compute before arriving, and a device
  // that left early would free buffers a peer still reads.
  Rendezvous read_rendezvous_;
  std::mutex mutex_;
  absl::flat_hash_map<std::pair<const CollectivePlan*, int64_t>, int64_t> occurrences_;
};

}  // namespace hmo::collectives

#endif  // HMO_COLLECTIVES_IN_PROCESS_COLLECTIVES_H_
