#ifndef HMO_COLLECTIVES_LAUNCH_RESULTS_H_
#define HMO_COLLECTIVES_LAUNCH_RESULTS_H_

// An SPMD program run by the processes of an MPI launch (mpi_collectives.h),
// whatever the backend: process k runs device k, then every process gathers
// every device's result, so any process (the CLI: process 0) can report all
// of them. Shared by the executing backends so the launch's rules and
// messages are the same everywhere:
//   - one process per device (CheckOneProcessPerDevice);
//   - a step every process takes before the next collective one
//     (AgreeAcrossLaunch), so one process's failure does not leave the
//     others waiting in a collective it never reaches;
//   - the results (GatherDeviceResults): each process's result's leaves
//     behind an ok flag, in one AllGather (the program gives every device
//     results of the same shape, so every process passes the same bytes).
// A process whose own step failed returns its own error; the others return
// ABORTED naming the device that failed (its error is in its own output).

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/collectives/mpi_collectives.h"
#include "hmo/ir/literal.h"
#include "hmo/ir/shape.h"

namespace hmo::collectives {

// INVALID_ARGUMENT unless `processes` == `devices`, naming the mpirun -n
// the module `module_name` needs.
absl::Status CheckOneProcessPerDevice(int64_t processes, std::string_view module_name,
                                      int64_t devices);

// Collective: every process calls it with how its `step` went. `mine` when it
// failed; ABORTED naming the first failed device otherwise; OK when every
// process succeeded.
absl::Status AgreeAcrossLaunch(MpiCollectives& mpi, const absl::Status& mine,
                               std::string_view step);

// Collective: every device's result (`result_shape`), in device order;
// `mine` is this process's device's. Fails as AgreeAcrossLaunch does.
absl::StatusOr<std::vector<Literal>> GatherDeviceResults(MpiCollectives& mpi,
                                                         const absl::StatusOr<Literal>& mine,
                                                         const Shape& result_shape);

// The two halves of GatherDeviceResults around its AllGather (tests):
// one device's bytes (an ok flag, then its leaves' bytes; zeros when it
// failed), and every device's result from every process's bytes.
std::vector<char> SerializeDeviceResult(const absl::StatusOr<Literal>& result,
                                        const Shape& result_shape);
absl::StatusOr<std::vector<Literal>> DeviceResultsFromBytes(
    const std::vector<std::vector<char>>& gathered, const Shape& result_shape);

}  // namespace hmo::collectives

#endif  // HMO_COLLECTIVES_LAUNCH_RESULTS_H_
