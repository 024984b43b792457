#include "rematerialization.h"

#include "hmo/base/status_macros.h"

namespace hmo {

const PassOptionBinding<MemoryLimitPassOptions>& RematerializationPass::Binding() {
  static const PassOptionBinding<MemoryLimitPassOptions> binding = [] {
    PassOptionBinding<MemoryLimitPassOptions> binding;
    BindCommonMemoryLimitOptions(binding);
    return binding;
  }();
  return binding;
}

absl::StatusOr<std::unique_ptr<RematerializationPass>> RematerializationPass::Create(
    const PassOptions& pass_options) {
  HMO_ASSIGN_OR_RETURN(const MemoryLimitPassOptions options, Binding().Read(pass_options));
  std::unique_ptr<RematerializationPass> pass(new RematerializationPass());
  HMO_RETURN_IF_ERROR(pass->ReadCommonOptions(options));
  pass->fitter_.recompute = true;
  pass->fitter_.offload = false;
  return pass;
}

absl::StatusOr<MemoryFitterOptions> RematerializationPass::FitterOptions(PassContext&) const {
  return fitter_;
}

}  // namespace hmo
