#ifndef HMO_PLUGINS_SCHEDULER_CORE_BFS_SCHEDULER_H_
#define HMO_PLUGINS_SCHEDULER_CORE_BFS_SCHEDULER_H_

// XLA's BFScheduler: Kahn's algorithm with a FIFO queue. It maximizes the
// number of instructions that could run at once (meant for XLA:CPU's
// concurrent runtime), not memory, and is not a candidate of the default
// scheduler.

#include <vector>

#include "core/scheduling_graph.h"

namespace hmo::scheduler {

// Returns the breadth-first order of `graph`: instructions whose distinct
// operands and control predecessors are all scheduled enter a FIFO queue,
// initially in instruction order, then as their last predecessor leaves it
// (users in users() order, then control successors).
std::vector<int> BfsSchedule(const SchedulingGraph& graph);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_BFS_SCHEDULER_H_
