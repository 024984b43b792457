// The aliasing plugin: buffer sharing between inputs, outputs and copies.
//   optimize-input-output-buffer-alias
//   copy-elimination

#include "absl/status/status.h"
#include "copy_elimination.h"
#include "hmo/base/status_macros.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/plugin_registrars.h"
#include "optimize_input_output_buffer_alias.h"

namespace {

absl::Status RegisterAliasingPasses(hmo::PassRegistrar& passes) {
  HMO_RETURN_IF_ERROR(passes.Register<hmo::OptimizeInputOutputBufferAlias>());
  return passes.Register<hmo::CopyElimination>();
}

}  // namespace

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = [] {
    HmoPluginInfo info = hmo::CxxPluginInfo("aliasing", "0.1.0");
    info.register_passes = hmo::RegistrationCallback<&RegisterAliasingPasses>;
    return info;
  }();
  return &info;
}
