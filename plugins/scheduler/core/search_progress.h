#ifndef HMO_PLUGINS_SCHEDULER_CORE_SEARCH_PROGRESS_H_
#define HMO_PLUGINS_SCHEDULER_CORE_SEARCH_PROGRESS_H_

// How the searches of this folder (ScheduleImprover, SolveExact) tell their
// caller how far they got, for a person watching: `done` of `total` steps
// (evaluations, search states) and the lowest peak found so far (the
// model's bytes, baseline included). Searches call it every thousand steps
// or so, never on each one; reporting changes nothing of their result. An
// empty function: nobody listens.

#include <cstdint>
#include <functional>

namespace hmo::scheduler {

using SearchProgress = std::function<void(int64_t done, int64_t total, int64_t best_peak)>;

// Steps between two reports.
inline constexpr int64_t kSearchProgressEvery = 1024;

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_SEARCH_PROGRESS_H_
