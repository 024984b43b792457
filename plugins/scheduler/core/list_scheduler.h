#ifndef HMO_PLUGINS_SCHEDULER_CORE_LIST_SCHEDULER_H_
#define HMO_PLUGINS_SCHEDULER_CORE_LIST_SCHEDULER_H_

// XLA's list scheduler (hlo_memory_scheduler.cc, ListScheduler), exactly:
// a greedy topological order that always runs the ready instruction with the
// highest priority
//   (bytes freed if scheduled now - bytes defined, number of users),
// effective scalars first, parameters and constants counted as free, the
// most recently queued instruction winning ties, and priorities of ready
// instructions refreshed only when a value drops to its last use.
//
// Known weakness (documented in XLA): greedily deferring an instruction whose
// output is larger than its inputs can raise the peak; see ScheduleImprover
// and ExactScheduler for what we do about it.

#include <vector>

#include "core/scheduling_graph.h"

namespace hmo::scheduler {

// Returns XLA's list-scheduler order of `graph`'s instructions.
std::vector<int> ListSchedule(const SchedulingGraph& graph);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_LIST_SCHEDULER_H_
