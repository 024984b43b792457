#ifndef HMO_PLUGINS_REMATERIALIZATION_HOST_OFFLOAD_CHOICE_H_
#define HMO_PLUGINS_REMATERIALIZATION_HOST_OFFLOAD_CHOICE_H_

// Keeping a value in host memory across the memory peak instead of
// recomputing it: a copy to host memory (S(5)) after the value's last use
// before the peak, and a copy back right before its first use after it, the
// form XLA's host offloader gives MoveToHost / MoveToDevice pairs. Any value
// may go, recomputable or not (a copy insertion's copy, a loop's result);
// it costs its bytes twice over the host link.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

struct HostOffloadChoice {
  std::string computation;
  std::string value;
  int64_t peak_position = 0;
  // The device bytes the value frees at the peak (its own).
  int64_t bytes = 0;

  // "fusion.3 to host".
  std::string ToString() const { return value + " to host"; }
};

// The values of `computation` live across `peak_position` of its sequence
// only to wait for a later use: device arrays defined in it before the peak
// (not parameters, constants, aliases of other buffers, the root, or
// instructions with control edges), unused at the peak, used after it.
std::vector<HostOffloadChoice> FindHostOffloadChoices(const HloModule& module,
                                                      const HloComputation& computation,
                                                      int64_t peak_position);

// Carries `choice` out in `module` (resolved by name): `value.to_host`
// copies it to S(5) right after its last use before the peak (or after it),
// `value.to_device` copies it back right before its first use after the
// peak, and those uses read the copy. Returns the copy back. Errors: names
// that do not resolve, no schedule, no use after the peak.
absl::StatusOr<HloInstruction*> ApplyHostOffloadChoice(HloModule& module,
                                                       const HostOffloadChoice& choice);

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_HOST_OFFLOAD_CHOICE_H_
