#ifndef HMO_COLLECTIVES_DEVICE_COLLECTIVES_H_
#define HMO_COLLECTIVES_DEVICE_COLLECTIVES_H_

// How a device's collectives meet its peers' (collective_plan.h says what
// each computes): InProcessCollectives when the devices are threads of this
// process, MpiCollectives when each is a process of an MPI launch.

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hmo/collectives/collective_plan.h"

namespace hmo::collectives {

class DeviceCollectives {
 public:
  virtual ~DeviceCollectives() = default;

  // Runs `plan` as `device`: reads `send` (plan.send_bytes each), writes
  // `receive` (plan.receive_bytes each). Devices reach a plan's collectives
  // in the same order; a peer that does not arrive in time is
  // DEADLINE_EXCEEDED naming its device.
  virtual absl::Status Run(const CollectivePlan& plan, int64_t device,
                           absl::Span<const void* const> send, absl::Span<void* const> receive) = 0;
};

}  // namespace hmo::collectives

#endif  // HMO_COLLECTIVES_DEVICE_COLLECTIVES_H_
