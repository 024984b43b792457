#include "cpu/compiler/cpu_collectives.h"

#include "absl/types/span.h"

namespace hmo::cpu {
namespace {

void RunCollective(CpuDeviceContext* context, int64_t index, const void* const* send,
                   void* const* receive) {
  if (!context->status.ok()) return;
  if (context->exceeded_loop != nullptr && *context->exceeded_loop >= 0) {
    // The run ends with the loop's error; the peers learn it from Abort.
    context->status = absl::AbortedError("a while loop ran out of its trip budget");
    return;
  }
  if (context->plans == nullptr || context->collectives == nullptr || index < 0 ||
      index >= static_cast<int64_t>(context->plans->size())) {
    context->status = absl::InternalError("CPU executable: collective #" + std::to_string(index) +
                                          " has no plan");
    return;
  }
  const collectives::CollectivePlan& plan = (*context->plans)[static_cast<size_t>(index)];
  context->status = context->collectives->Run(
      plan, context->device, absl::MakeConstSpan(send, plan.send_bytes.size()),
      absl::MakeConstSpan(receive, plan.receive_bytes.size()));
}

}  // namespace

std::pair<std::string, void*> CpuCollectiveSymbol() {
  return {"__hmo_cpu_collective", reinterpret_cast<void*>(&RunCollective)};
}

}  // namespace hmo::cpu
