#ifndef HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_H_
#define HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_H_

// The `rematerialization` pass: trades recomputation for device memory until
// a scheduled module fits its memory limit (XLA's HloRematerialization):
// the search of memory_fitter.h with recomputation only, costed at nominal
// host rates (BackendCostRates' defaults). The recomputations go right
// before their first later use; a scheduler run afterwards may order them
// better (pipelines/rematerialization.yaml). Limit and failure:
// memory_limit_pass.h.

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"
#include "memory_limit_pass.h"

namespace hmo {

class RematerializationPass : public MemoryLimitPass {
 public:
  static constexpr std::string_view kName = "rematerialization";
  static constexpr std::string_view kDescription =
      "recomputes values live across the memory peak, right before their next use, until the "
      "scheduled module fits the memory limit (XLA's rematerialization; choices measured by "
      "buffer assignment)";

  static const PassOptionBinding<MemoryLimitPassOptions>& Binding();
  static PassOptionSchema OptionSchema() { return Binding().schema(); }
  static absl::StatusOr<std::unique_ptr<RematerializationPass>> Create(const PassOptions& options);

  std::string_view name() const override { return kName; }

 private:
  RematerializationPass() = default;
  absl::StatusOr<MemoryFitterOptions> FitterOptions(PassContext& context) const override;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_H_
