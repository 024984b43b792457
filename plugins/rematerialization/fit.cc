#include "fit.h"

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/pass/pass_context.h"
#include "hmo/plugin/plugin_registries.h"

namespace hmo {

const PassOptionBinding<MemoryLimitPassOptions>& FitPass::Binding() {
  static const PassOptionBinding<MemoryLimitPassOptions> binding = [] {
    PassOptionBinding<MemoryLimitPassOptions> binding;
    BindCommonMemoryLimitOptions(binding)
        .Option("backend", &MemoryLimitPassOptions::backend, "",
                "the registered backend whose cost rates weigh FLOPs against host transfers "
                "(empty: the pipeline's target, else cpu)")
        .Option("recompute", &MemoryLimitPassOptions::recompute, true,
                "consider recomputing values (rematerialization)")
        .Option("offload", &MemoryLimitPassOptions::offload, true,
                "consider keeping values in host memory (S(5)) across the peak");
    return binding;
  }();
  return binding;
}

absl::StatusOr<std::unique_ptr<FitPass>> FitPass::Create(const PassOptions& pass_options) {
  HMO_ASSIGN_OR_RETURN(const MemoryLimitPassOptions options, Binding().Read(pass_options));
  std::unique_ptr<FitPass> pass(new FitPass());
  HMO_RETURN_IF_ERROR(pass->ReadCommonOptions(options));
  if (!options.recompute && !options.offload) {
    return absl::InvalidArgumentError("options 'recompute' and 'offload' are both false");
  }
  pass->fitter_.recompute = options.recompute;
  pass->fitter_.offload = options.offload;
  pass->backend_ = options.backend;
  return pass;
}

absl::StatusOr<MemoryFitterOptions> FitPass::FitterOptions(PassContext& context) const {
  const std::string& target = context.target_memory_model().target;
  const std::string name = !backend_.empty() ? backend_ : !target.empty() ? target : "cpu";
  const RegisteredBackend* backend = context.registries().backends.Find(name);
  if (backend == nullptr) {
    return absl::NotFoundError(
        fmt::format("no backend '{}' is loaded (loaded: {})", name,
                    absl::StrJoin(context.registries().backends.Names(), ", ")));
  }
  MemoryFitterOptions options = fitter_;
  options.rates = backend->registration.backend->CostRates();
  return options;
}

}  // namespace hmo
