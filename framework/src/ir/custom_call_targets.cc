#include "hmo/ir/custom_call_targets.h"

#include <array>

namespace hmo {

bool IsValuePassingCustomCallTarget(std::string_view target) {
  static constexpr std::array<std::string_view, 5> kTargets = {
      kMoveToHostTarget, kMoveToDeviceTarget, kAnnotateDevicePlacementTarget, kShardingTarget,
      kSdyFuncResultShardingTarget};
  for (std::string_view known : kTargets) {
    if (target == known) return true;
  }
  return false;
}

}  // namespace hmo
