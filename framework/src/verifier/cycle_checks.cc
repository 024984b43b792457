#include "cycle_checks.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "str_util.h"

namespace hmo::verifier_internal {
namespace {

enum class Mark { kUnvisited, kActive, kDone };

}  // namespace

void CheckCallGraphCycles(const HloModule& module, VerifierErrorSink& sink) {
  absl::flat_hash_set<const HloComputation*> in_module;
  for (const HloComputation* c : module.computations()) in_module.insert(c);
  absl::flat_hash_map<const HloComputation*, Mark> mark;
  // Iterative DFS with an explicit stack of (computation, next callee index).
  for (const HloComputation* start : module.computations()) {
    if (sink.full()) return;
    if (mark[start] != Mark::kUnvisited) continue;
    // A call edge: the calling instruction and the computation it calls.
    struct Call {
      const HloInstruction* caller;
      const HloComputation* callee;
    };
    struct Frame {
      const HloComputation* comp;
      std::vector<Call> callees;
      size_t next = 0;
    };
    auto callees_of = [&](const HloComputation* c) {
      std::vector<Call> out;
      for (const HloInstruction* i : c->instructions()) {
        for (const HloComputation* callee : i->called_computations()) {
          if (callee != nullptr && in_module.contains(callee)) out.push_back({i, callee});
        }
      }
      return out;
    };
    std::vector<Frame> stack;
    stack.push_back({start, callees_of(start)});
    mark[start] = Mark::kActive;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.callees.size()) {
        mark[top.comp] = Mark::kDone;
        stack.pop_back();
        continue;
      }
      const Call call = top.callees[top.next++];
      const HloComputation* callee = call.callee;
      Mark& m = mark[callee];
      if (m == Mark::kActive) {
        std::vector<std::string> path;
        bool on_path = false;
        for (const Frame& f : stack) {
          if (f.comp == callee) on_path = true;
          if (on_path) path.push_back(f.comp->name());
        }
        path.push_back(callee->name());
        // Reported at the call that closes the cycle, so it has a position.
        sink.AddInstructionError(*top.comp, *call.caller, "call-graph-cycle",
                                 StrCat("computation ", callee->name(),
                                        " calls itself through ", absl::StrJoin(path, " -> ")));
        if (sink.full()) return;
        continue;
      }
      if (m == Mark::kDone) continue;
      m = Mark::kActive;
      const HloComputation* next = callee;
      stack.push_back({next, callees_of(next)});
    }
  }
}

void CheckDataControlCycles(const HloComputation& computation, VerifierErrorSink& sink) {
  // Kahn's algorithm over "must run before" edges: operand -> user and
  // control predecessor -> successor, restricted to this computation.
  absl::flat_hash_map<const HloInstruction*, int64_t> pending;
  auto predecessors = [&](const HloInstruction* i) {
    std::vector<const HloInstruction*> out;
    for (const HloInstruction* op : i->operands()) {
      if (op != nullptr && op->parent() == &computation) out.push_back(op);
    }
    for (const HloInstruction* p : i->control_predecessors()) {
      if (p != nullptr && p->parent() == &computation) out.push_back(p);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  absl::flat_hash_map<const HloInstruction*, std::vector<const HloInstruction*>> successors;
  std::vector<const HloInstruction*> ready;
  for (const HloInstruction* i : computation.instructions()) {
    std::vector<const HloInstruction*> preds = predecessors(i);
    pending[i] = static_cast<int64_t>(preds.size());
    for (const HloInstruction* p : preds) successors[p].push_back(i);
    if (preds.empty()) ready.push_back(i);
  }
  int64_t processed = 0;
  while (!ready.empty()) {
    const HloInstruction* i = ready.back();
    ready.pop_back();
    ++processed;
    auto it = successors.find(i);
    if (it == successors.end()) continue;
    for (const HloInstruction* s : it->second) {
      if (--pending[s] == 0) ready.push_back(s);
    }
  }
  if (processed == computation.instruction_count()) return;

  // Walk backwards from a blocked instruction through blocked predecessors
  // until an instruction repeats: that closes a cycle.
  const HloInstruction* start = nullptr;
  for (const HloInstruction* i : computation.instructions()) {
    if (pending[i] > 0) {
      start = i;
      break;
    }
  }
  if (start == nullptr) return;
  std::vector<const HloInstruction*> walk;
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  const HloInstruction* cur = start;
  while (!position.contains(cur)) {
    position[cur] = walk.size();
    walk.push_back(cur);
    const HloInstruction* next = nullptr;
    for (const HloInstruction* p : predecessors(cur)) {
      if (pending[p] > 0) {
        next = p;
        break;
      }
    }
    if (next == nullptr) break;  // cannot happen for a blocked instruction
    cur = next;
  }
  std::vector<std::string> names;
  // The walk follows edges backwards; print the cycle in execution order.
  for (size_t k = walk.size(); k-- > position[cur];) names.push_back(walk[k]->name());
  names.push_back(walk.back()->name());
  sink.AddInstructionError(computation, *cur, "cycle",
                           StrCat("instruction is on a cycle of data and control edges: ",
                                  absl::StrJoin(names, " -> ")));
}

}  // namespace hmo::verifier_internal
