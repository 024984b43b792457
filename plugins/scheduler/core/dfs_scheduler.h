#ifndef HMO_PLUGINS_SCHEDULER_CORE_DFS_SCHEDULER_H_
#define HMO_PLUGINS_SCHEDULER_CORE_DFS_SCHEDULER_H_

// XLA's DFS memory scheduler (DFSMemoryScheduler): a depth-first post order
// that, at every instruction, visits its operands and control predecessors in
// the order
//   more extra users first, then larger cumulative size, then name,
// where, over the instruction's transitive operands, extra users sums
// max(#users - 1, 0) and cumulative size sums the bytes each defines
// (parameters and constants count 0; both sums are capped because shared
// operands are counted once per path). Instructions nobody uses that are not
// the root and have no control successors are visited first, in instruction
// order, then the root.

#include <vector>

#include "absl/status/statusor.h"
#include "core/scheduling_graph.h"

namespace hmo::scheduler {

// Returns the DFS order of `graph`, or FailedPrecondition when the graph has
// a cycle or some instruction cannot be reached from the root or a dead end.
absl::StatusOr<std::vector<int>> DfsSchedule(const SchedulingGraph& graph);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_DFS_SCHEDULER_H_
