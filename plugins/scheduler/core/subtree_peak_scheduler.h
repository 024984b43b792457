#ifndef HMO_PLUGINS_SCHEDULER_CORE_SUBTREE_PEAK_SCHEDULER_H_
#define HMO_PLUGINS_SCHEDULER_CORE_SUBTREE_PEAK_SCHEDULER_H_

// A depth-first post order that visits operands the way the optimal order of
// a tree does (Sethi-Ullman / Liu): the operand whose subtree needs the most
// memory beyond what it leaves behind goes first.
//
// For every instruction, bottom up, treating the computation as a tree:
//   result(v) = bytes v's outputs keep after its step,
//   peak(v)   = max over operands c_1..c_k in visiting order of
//               (results of the operands before c_j) + peak(c_j),
//               and all operand results + v's own outputs,
// with operands sorted by peak - result, largest first (optimal for trees).
// XLA's DFS scheduler sorts operands by cumulative subtree size instead, which
// runs a subtree with a large total but a large lasting result before one with
// a brief large peak; this order does not. Shared operands make the numbers
// estimates on DAGs; the improver and the heap simulator judge the result.

#include <vector>

#include "core/memory_model.h"

namespace hmo::scheduler {

// Returns the subtree-peak order of model.graph(): dead instructions (no
// users, not the root, no control successors) first, in instruction order,
// then the root; control predecessors are visited like operands.
std::vector<int> SubtreePeakSchedule(const MemoryModel& model);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_SUBTREE_PEAK_SCHEDULER_H_
