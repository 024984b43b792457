// The plugin that provides the `memory-scheduler` pass. The strategies it
// runs come from their own plugins, through the C strategy ABI.

#include "hmo/plugin/plugin_registrars.h"
#include "pass/memory_scheduler.h"

namespace {

absl::Status RegisterPasses(hmo::PassRegistrar& passes) {
  return passes.Register<hmo::MemorySchedulerPass>();
}

}  // namespace

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = [] {
    HmoPluginInfo info = hmo::CxxPluginInfo("scheduler", "0.1.0");
    info.register_passes = hmo::RegistrationCallback<&RegisterPasses>;
    return info;
  }();
  return &info;
}
