#include "core/improver_request_options.h"

#include <algorithm>
#include <utility>

#include "core/exact_scheduler.h"
#include "fmt/format.h"

namespace hmo::scheduler {

std::vector<StrategyIntOption> WithImproverOptions(std::vector<StrategyIntOption> options) {
  const ImproverOptions defaults;
  for (StrategyIntOption option : std::vector<StrategyIntOption>{
           {"move-radius", defaults.move_radius,
            "instructions up to this many steps from a peak step are tried as moves"},
           {"max-move-distance", defaults.max_move_distance, "the farthest one instruction moves"},
           {"window", defaults.window,
            "steps re-ordered exactly at once around a peak step (0: no windows; at most 64)"},
           {"window-states", defaults.window_states, "search states per window"},
           {"max-evaluations", defaults.max_evaluations,
            "moves scored in all; the local search stops when it is spent"}}) {
    options.push_back(std::move(option));
  }
  return options;
}

absl::StatusOr<ImproverOptions> ReadImproverOptions(const StrategyRequestOptions& options) {
  ImproverOptions out;
  struct Field {
    std::string_view key;
    int64_t* value;
  };
  int64_t move_radius = 0, max_move_distance = 0, window = 0;
  for (Field field : {Field{"move-radius", &move_radius},
                      Field{"max-move-distance", &max_move_distance}, Field{"window", &window},
                      Field{"window-states", &out.window_states},
                      Field{"max-evaluations", &out.max_evaluations}}) {
    absl::StatusOr<int64_t> value = options.GetInt(field.key);
    if (!value.ok()) return value.status();
    if (*value < 0) {
      return absl::InvalidArgumentError(
          fmt::format("option '{}' must not be negative", field.key));
    }
    *field.value = *value;
  }
  if (window > 64) return absl::InvalidArgumentError("option 'window' must be at most 64");
  out.move_radius = static_cast<int>(std::min<int64_t>(move_radius, 1 << 20));
  out.max_move_distance = static_cast<int>(std::min<int64_t>(max_move_distance, 1 << 30));
  out.window = static_cast<int>(window);
  return out;
}

std::vector<int> ImproveThenSolveExact(const MemoryModel& model, ImproverOptions improver,
                                       std::optional<int64_t> exact_states,
                                       const StrategyProgress& progress) {
  const bool listening = progress.listening();
  const int64_t local_budget = improver.max_evaluations;
  const int64_t total = local_budget + std::max<int64_t>(exact_states.value_or(0), 0);
  // One count over both searches, never going back: the local search's
  // evaluations (at most its budget), then, once it ended, its whole budget
  // plus the exact search's states.
  int64_t reported = 0;
  auto report = [&](int64_t done, std::string_view search, int64_t best_peak) {
    reported = std::max(reported, std::min(done, total));
    progress.Report(reported, total, fmt::format("{} search, best peak {} B", search, best_peak));
  };
  if (listening) {
    improver.progress = [&](int64_t done, int64_t, int64_t best_peak) {
      report(std::min(done, local_budget), "local", best_peak);
    };
  }
  std::vector<int> order = ImprovedSchedule(model, improver);
  if (!exact_states.has_value()) return order;
  ExactOptions exact;
  exact.max_states = *exact_states;
  if (listening) {
    exact.progress = [&](int64_t states, int64_t, int64_t best_peak) {
      report(local_budget + states, "exact", best_peak);
    };
  }
  return SolveExact(MakeComputationProblem(model), order, exact).order;
}

}  // namespace hmo::scheduler
