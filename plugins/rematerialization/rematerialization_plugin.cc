// The rematerialization plugin: passes that fit a module under a device
// memory limit.
//   rematerialization   recomputation only (XLA's HloRematerialization)
//   fit                 recomputation and host offload, at a backend's rates

#include "absl/status/status.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/plugin_registrars.h"
#include "fit.h"
#include "hmo/base/status_macros.h"
#include "rematerialization.h"

namespace {

absl::Status RegisterRematerializationPasses(hmo::PassRegistrar& passes) {
  HMO_RETURN_IF_ERROR(passes.Register<hmo::RematerializationPass>());
  return passes.Register<hmo::FitPass>();
}

}  // namespace

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = [] {
    HmoPluginInfo info = hmo::CxxPluginInfo("rematerialization", "0.1.0");
    info.register_passes = hmo::RegistrationCallback<&RegisterRematerializationPasses>;
    return info;
  }();
  return &info;
}
