// libhmo_cpu_backend.so: registers the "cpu" backend and the passes its
// pipelines use (`call-inliner`, `dot-canonicalization`,
// `convolution-canonicalization`, `transpose-folding`,
// `cpu-fusion`, `reshape-to-bitcast`).

#include <memory>

#include "cpu/compiler/cpu_backend.h"
#include "cpu/fusion/cpu_instruction_fusion.h"
#include "cpu/simplification/call_inliner.h"
#include "cpu/simplification/dead_loop_state_removal.h"
#include "cpu/simplification/convolution_canonicalization.h"
#include "cpu/simplification/dot_canonicalization.h"
#include "cpu/simplification/reshape_to_bitcast.h"
#include "cpu/simplification/transpose_folding.h"
#include "hmo/base/status_macros.h"
#include "hmo/plugin/plugin_registrars.h"

namespace {

absl::Status RegisterPasses(hmo::PassRegistrar& passes) {
  HMO_RETURN_IF_ERROR(passes.Register<hmo::cpu::CallInliner>());
  HMO_RETURN_IF_ERROR(passes.Register<hmo::cpu::DeadLoopStateRemoval>());
  HMO_RETURN_IF_ERROR(passes.Register<hmo::cpu::DotCanonicalization>());
  HMO_RETURN_IF_ERROR(passes.Register<hmo::cpu::ConvolutionCanonicalization>());
  HMO_RETURN_IF_ERROR(passes.Register<hmo::cpu::TransposeFolding>());
  HMO_RETURN_IF_ERROR(passes.Register<hmo::cpu::ReshapeToBitcast>());
  return passes.Register<hmo::cpu::CpuInstructionFusion>();
}

absl::Status RegisterBackends(hmo::BackendRegistrar& backends) {
  hmo::BackendRegistration registration;
  registration.name = "cpu";
  registration.description =
      "the host CPU: LLVM code generation, ORC JIT, execution on buffer-assignment arenas";
  registration.backend = std::make_shared<const hmo::cpu::CpuBackend>();
  return backends.Register(std::move(registration));
}

}  // namespace

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = [] {
    HmoPluginInfo info = hmo::CxxPluginInfo("cpu-backend", "0.1.0");
    info.register_passes = hmo::RegistrationCallback<&RegisterPasses>;
    info.register_backends = hmo::RegistrationCallback<&RegisterBackends>;
    return info;
  }();
  return &info;
}
