#ifndef HMO_BACKENDS_CPU_COMPILER_CPU_COLLECTIVES_H_
#define HMO_BACKENDS_CPU_COMPILER_CPU_COLLECTIVES_H_

// The collectives of a CPU executable: generated code calls
// `__hmo_cpu_collective(device_context, k, send, receive)` for its k-th
// collective (cpu/codegen/module_emitter.h), and the runtime runs plan k
// (hmo/collectives/collective_plan.h) as the context's device, with the
// other devices of the run as threads of this process (InProcessCollectives)
// or as the other processes of an MPI launch (MpiCollectives). A failure is kept in the context,
// later collectives of that device return at once, and the executable reports it when the entry
// function returns.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "hmo/collectives/collective_plan.h"
#include "hmo/collectives/device_collectives.h"

namespace hmo::cpu {

// One device's view of a run: buffer_table[N + 1] of its entry call.
struct CpuDeviceContext {
  int64_t device = 0;
  const std::vector<collectives::CollectivePlan>* plans = nullptr;
  collectives::DeviceCollectives* collectives = nullptr;
  // The run's LoopTripBudget::exceeded_loop: once a loop ran out, the
  // device's results are void and its collectives no longer meet.
  const int64_t* exceeded_loop = nullptr;
  // The first failure of a collective on this device.
  absl::Status status;
};

// The name and address the JIT resolves `__hmo_cpu_collective` to.
std::pair<std::string, void*> CpuCollectiveSymbol();

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_COMPILER_CPU_COLLECTIVES_H_
