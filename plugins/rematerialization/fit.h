#ifndef HMO_PLUGINS_REMATERIALIZATION_FIT_H_
#define HMO_PLUGINS_REMATERIALIZATION_FIT_H_

// The `fit` pass: the cheapest way under the memory limit by recomputation
// and host offload together (memory_fitter.h), each change costed in time
// at the rates of the backend named by `backend` (BackendCostRates): FLOPs
// and bytes written for a recomputation, its bytes to host memory and back
// for an offload. Scheduling is the pipeline's part (pipelines/fit.yaml
// schedules before and after). Limit and failure: memory_limit_pass.h.

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"
#include "memory_limit_pass.h"

namespace hmo {

class FitPass : public MemoryLimitPass {
 public:
  static constexpr std::string_view kName = "fit";
  static constexpr std::string_view kDescription =
      "fits the scheduled module under the memory limit at the least cost in time: recomputes "
      "values or keeps them in host memory across the peak, costed at the backend's rates";

  static const PassOptionBinding<MemoryLimitPassOptions>& Binding();
  static PassOptionSchema OptionSchema() { return Binding().schema(); }
  // Errors: those of the common options; neither recompute nor offload.
  static absl::StatusOr<std::unique_ptr<FitPass>> Create(const PassOptions& options);

  std::string_view name() const override { return kName; }

 private:
  FitPass() = default;
  // Errors: a backend that is not loaded (with the loaded ones).
  absl::StatusOr<MemoryFitterOptions> FitterOptions(PassContext& context) const override;

  std::string backend_;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_FIT_H_
