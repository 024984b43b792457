#ifndef HMO_COLLECTIVES_MPI_COLLECTIVES_H_
#define HMO_COLLECTIVES_MPI_COLLECTIVES_H_

// Collectives across the processes of an MPI launch (`mpirun -n N hmo run
// ... --execute`): process k runs device k of the SPMD program. A
// collective sends this device's send buffers to the peers of its group
// (the target alone for a collective-permute) and receives theirs, then
// computes its receive buffers as in-process collectives do
// (collective_plan.h). A peer whose buffers do not arrive within the
// timeout fails the collective with DEADLINE_EXCEEDED naming its device.
//
// MPI is initialized by the first FromLaunch of a launched process and
// finalized when the process ends. Only the thread running the device calls
// MPI (MPI_THREAD_SERIALIZED).

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "hmo/collectives/device_collectives.h"

namespace hmo::collectives {

class MpiCollectives final : public DeviceCollectives {
 public:
  // The session of this process's launch: null when an MPI launcher did not
  // start it with more than one process (its environment says); UNAVAILABLE
  // when hmo was built without MPI or MPI fails to initialize.
  static absl::StatusOr<MpiCollectives*> FromLaunch();

  int process() const { return process_; }
  int process_count() const { return process_count_; }
  // This process's index among the launch's processes on its own machine
  // (MPI_COMM_TYPE_SHARED): which of the machine's GPUs it takes.
  int local_process() const { return local_process_; }
  void set_timeout(absl::Duration timeout) { timeout_ = timeout; }

  // `device` must be process().
  absl::Status Run(const CollectivePlan& plan, int64_t device, absl::Span<const void* const> send,
                   absl::Span<void* const> receive) override;

  // Every process's `bytes`, in process order; each process passes the
  // same number of bytes (INVALID_ARGUMENT otherwise, on every process).
  absl::StatusOr<std::vector<std::vector<char>>> AllGather(absl::Span<const char> bytes);

 private:
  MpiCollectives(int process, int process_count, int local_process)
      : process_(process), process_count_(process_count), local_process_(local_process) {}

  int process_;
  int process_count_;
  int local_process_;
  absl::Duration timeout_ = absl::Seconds(60);
  int64_t next_tag_ = 0;
};

}  // namespace hmo::collectives

#endif  // HMO_COLLECTIVES_MPI_COLLECTIVES_H_
