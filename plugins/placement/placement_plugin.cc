// The placement plugin: frontend memory-placement annotations and host
// offloading.
//   convert-memory-placement-to-internal-annotations
//   host-offloader

#include "absl/status/status.h"
#include "convert_memory_placement_to_internal_annotations.h"
#include "hmo/base/status_macros.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/plugin_registrars.h"
#include "host_offloader.h"

namespace {

absl::Status RegisterPlacementPasses(hmo::PassRegistrar& passes) {
  HMO_RETURN_IF_ERROR(passes.Register<hmo::ConvertMemoryPlacementToInternalAnnotations>());
  return passes.Register<hmo::HostOffloader>();
}

}  // namespace

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = [] {
    HmoPluginInfo info = hmo::CxxPluginInfo("placement", "0.1.0");
    info.register_passes = hmo::RegistrationCallback<&RegisterPlacementPasses>;
    return info;
  }();
  return &info;
}
