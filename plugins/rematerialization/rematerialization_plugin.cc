// The rematerialization plugin:
//   rematerialization

#include "absl/status/status.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/plugin_registrars.h"
#include "rematerialization.h"

namespace {

absl::Status RegisterRematerializationPasses(hmo::PassRegistrar& passes) {
  return passes.Register<hmo::RematerializationPass>();
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
