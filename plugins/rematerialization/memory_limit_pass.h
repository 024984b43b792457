#ifndef HMO_PLUGINS_REMATERIALIZATION_MEMORY_LIMIT_PASS_H_
#define HMO_PLUGINS_REMATERIALIZATION_MEMORY_LIMIT_PASS_H_

// What the passes that fit a module under a device memory limit share
// (`rematerialization`, `fit`): their common options, where the limit comes
// from, and the run around FitModuleToMemoryLimit (memory_fitter.h).
//
// The limit is the pass's `memory-limit` option or, without it, the
// pipeline's (`memory-limit:` / `hmo run --memory-limit`), on the figure
// `hmo stats` reports for the device (hmo/analysis/memory_limit.h). When
// the module still does not fit, the pass fails (ResourceExhausted, with
// `fail-over-limit`, the default) naming what it did, the proven floor and
// the values live at the peak, each with why it cannot go.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_binding.h"
#include "memory_fitter.h"

namespace hmo {

// How a step's change is chosen (option selection).
enum class FitSelection { kEvaluated, kEstimate };

// Every option of both passes; each binds the ones it has.
struct MemoryLimitPassOptions {
  std::string memory_limit;
  FitSelection selection = FitSelection::kEvaluated;
  int64_t max_block_size = 0;
  int64_t evaluated_candidates = 0;
  int64_t max_steps = 0;
  int64_t trial_node_budget = 0;
  int64_t threads = 0;
  bool fail_over_limit = true;
  bool fallback = true;
  // `fit` only.
  std::string backend;
  bool recompute = true;
  bool offload = true;
};

// Binds the options both passes have to `binding`.
PassOptionBinding<MemoryLimitPassOptions>& BindCommonMemoryLimitOptions(
    PassOptionBinding<MemoryLimitPassOptions>& binding);

class MemoryLimitPass : public HloPass {
 public:
  // Errors: no limit, no schedule, buffer assignment's, and (fail-over-limit)
  // a module still over the limit.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

  const MemoryFitMetrics& metrics() const { return metrics_; }

 protected:
  // Reads the common options. Errors: a memory-limit that is not a size, a
  // non-positive bound.
  absl::Status ReadCommonOptions(const MemoryLimitPassOptions& options);

  // The fitter's options for this run (the pass may look its backend up).
  virtual absl::StatusOr<MemoryFitterOptions> FitterOptions(PassContext& context) const = 0;

  std::optional<int64_t> memory_limit_;
  bool fail_over_limit_ = true;
  MemoryFitterOptions fitter_;

 private:
  MemoryFitMetrics metrics_;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_MEMORY_LIMIT_PASS_H_
