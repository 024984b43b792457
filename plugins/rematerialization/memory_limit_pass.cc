#include "memory_limit_pass.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "hmo/analysis/byte_size.h"
#include "hmo/base/status_macros.h"
#include "hmo/pass/pass_context.h"

namespace hmo {

PassOptionBinding<MemoryLimitPassOptions>& BindCommonMemoryLimitOptions(
    PassOptionBinding<MemoryLimitPassOptions>& binding) {
  using Options = MemoryLimitPassOptions;
  return binding
      .Option("memory-limit", &Options::memory_limit, "",
              "device bytes to fit (B/KiB/MiB/GiB/TiB suffixes); empty: the pipeline's "
              "memory-limit")
      .Enum("selection", &Options::selection, FitSelection::kEvaluated,
            {{"evaluated", FitSelection::kEvaluated}, {"estimate", FitSelection::kEstimate}},
            "'evaluated': the best-ranked changes are each measured by buffer assignment; "
            "'estimate': the best-ranked change is taken (XLA's greedy choice)")
      .Option("max-block-size", &Options::max_block_size, 3,
              "most instructions recomputed together (a value and operands that would "
              "otherwise live across the peak)")
      .Option("evaluated-candidates", &Options::evaluated_candidates, 8,
              "selection=evaluated: changes measured per step, by rank and by bytes freed")
      .Option("max-steps", &Options::max_steps, 1000, "most changes in one run")
      .Option("trial-node-budget", &Options::trial_node_budget, 10000,
              "selection=evaluated: branch-and-bound nodes of the temp packing that measures a "
              "candidate and each step taken (a step that may fit is measured with the full "
              "budget, as the pipeline's limit check does)")
      .Option("threads", &Options::threads, 0,
              "selection=evaluated: candidates measured at once (0: one per core); the choice "
              "does not depend on it")
      .Option("fallback", &Options::fallback, true,
              "when the cheapest order stops short, search again from the module as it came in "
              "other orders (bytes freed alone; offload alone) and keep the best")
      .Option("fail-over-limit", &Options::fail_over_limit, true,
              "fail when the module still does not fit (else leave the check to the pipeline's "
              "memory limit, or to a later pass)");
}

absl::Status MemoryLimitPass::ReadCommonOptions(const MemoryLimitPassOptions& options) {
  if (!options.memory_limit.empty()) {
    absl::StatusOr<int64_t> limit = ParseByteSize(options.memory_limit);
    if (!limit.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("option 'memory-limit': ", limit.status().message()));
    }
    memory_limit_ = *limit;
  }
  fitter_.evaluate = options.selection == FitSelection::kEvaluated;
  fitter_.max_block_size = options.max_block_size;
  fitter_.evaluated_candidates = options.evaluated_candidates;
  fitter_.max_steps = options.max_steps;
  fitter_.trial_node_budget = options.trial_node_budget;
  fitter_.threads = options.threads > 0 ? options.threads
                                        : std::max<int64_t>(1, std::thread::hardware_concurrency());
  fitter_.fallback = options.fallback;
  fail_over_limit_ = options.fail_over_limit;
  if (fitter_.max_block_size <= 0) {
    return absl::InvalidArgumentError("option 'max-block-size' must be positive");
  }
  if (fitter_.evaluated_candidates <= 0) {
    return absl::InvalidArgumentError("option 'evaluated-candidates' must be positive");
  }
  if (fitter_.max_steps < 0) return absl::InvalidArgumentError("option 'max-steps' must be >= 0");
  if (options.threads < 0) return absl::InvalidArgumentError("option 'threads' must be >= 0");
  if (fitter_.trial_node_budget <= 0) {
    return absl::InvalidArgumentError("option 'trial-node-budget' must be positive");
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> MemoryLimitPass::Run(HloModule& module, PassContext& context) {
  const std::optional<int64_t> limit =
      memory_limit_.has_value() ? memory_limit_ : context.memory_limit();
  if (!limit.has_value()) {
    return absl::InvalidArgumentError(
        "no memory limit: give the pass 'memory-limit' or the pipeline 'memory-limit:' "
        "(hmo run --memory-limit SIZE)");
  }
  HMO_ASSIGN_OR_RETURN(MemoryFitterOptions options, FitterOptions(context));
  // Measured as the pipeline's limit check and the executable measure.
  options.model = context.target_memory_model();
  options.progress = context.progress();
  HMO_ASSIGN_OR_RETURN(metrics_, FitModuleToMemoryLimit(module, *limit, options));
  context.Report(metrics_.ToString());
  if (!metrics_.fits && fail_over_limit_) {
    return absl::ResourceExhaustedError(metrics_.FailureMessage());
  }
  return !metrics_.decisions.empty();
}

}  // namespace hmo
