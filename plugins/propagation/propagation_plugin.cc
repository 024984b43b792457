// The propagation plugin: memory-space-propagation.

#include "absl/status/status.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/plugin_registrars.h"
#include "memory_space_propagation.h"

namespace {

absl::Status RegisterPropagationPasses(hmo::PassRegistrar& passes) {
  return passes.Register<hmo::MemorySpacePropagation>();
}

}  // namespace

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = [] {
    HmoPluginInfo info = hmo::CxxPluginInfo("propagation", "0.1.0");
    info.register_passes = hmo::RegistrationCallback<&RegisterPropagationPasses>;
    return info;
  }();
  return &info;
}
