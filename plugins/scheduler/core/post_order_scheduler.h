#ifndef HMO_PLUGINS_SCHEDULER_CORE_POST_ORDER_SCHEDULER_H_
#define HMO_PLUGINS_SCHEDULER_CORE_POST_ORDER_SCHEDULER_H_

// XLA's post-order scheduler: the computation's instruction post order
// (HloComputation::MakeInstructionPostOrder) unchanged. A depth-first walk
// from every instruction without users (the root included), in instruction
// order; at each instruction its control predecessors are visited first (the
// last listed first), then its operands, first operand first.
//
// XLA also treats channel-paired send/recv as dependencies here; the
// scheduling view carries no channels, so such pairs are ordered by their data
// and control edges only.

#include <vector>

#include "core/scheduling_graph.h"

namespace hmo::scheduler {

// Returns the post order of `graph`'s instructions.
std::vector<int> PostOrderSchedule(const SchedulingGraph& graph);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_POST_ORDER_SCHEDULER_H_
