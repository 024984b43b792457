#ifndef HMO_ANALYSIS_CALL_GRAPH_H_
#define HMO_ANALYSIS_CALL_GRAPH_H_

// CallGraph: which instructions call which computations, and in what context
// each computation runs (XLA's xla/service/call_graph.h, the parts the memory
// analyses need).
//
// A computation runs in a control-flow ("sequential") context when it is the
// entry or is called by call / while / conditional / async ops: its
// parameters receive the caller's values. It runs in an embedded ("parallel")
// context when it is applied element by element inside an op (fusion, map,
// reduce, sort, scatter, custom-call, ...): its parameters define fresh
// values. Contexts propagate: anything called from an embedded computation is
// embedded too.

#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

enum class CallContext {
  kEmbedded,     // parallel: map, reduce, fusion, sort, ...
  kControlFlow,  // sequential: call, while, conditional, async
  kBoth,         // called in both ways (unsupported by dataflow analysis)
  kNone,         // not called / no context
};

// The context an instruction calls its computations in.
CallContext GetInstructionCallContext(HloOpcode opcode);

// XLA's HloModule::MakeComputationPostOrder: for each computation that no
// instruction calls (in module order), its callees depth first (each
// instruction's called computations in order, recursively, callees first),
// then itself; each computation once. Differs from hmo's
// HloModule::MakeComputationPostOrder, which also starts walks at called
// computations met earlier in module order; value ids depend on this order.
std::vector<HloComputation*> ComputationPostOrderLikeXla(const HloModule& module);

// One instruction calling one or more computations.
class CallSite {
 public:
  CallSite(HloInstruction* instruction, std::vector<HloComputation*> called_computations,
           CallContext context)
      : instruction_(instruction), called_computations_(std::move(called_computations)),
        context_(context) {}
  HloInstruction* instruction() const { return instruction_; }
  const std::vector<HloComputation*>& called_computations() const { return called_computations_; }
  CallContext context() const { return context_; }

 private:
  HloInstruction* instruction_;
  std::vector<HloComputation*> called_computations_;
  CallContext context_;
};

class CallGraphNode {
 public:
  explicit CallGraphNode(HloComputation* computation) : computation_(computation) {}
  HloComputation* computation() const { return computation_; }
  // Call sites inside this computation, in instruction order.
  const std::vector<CallSite>& callsites() const { return callsites_; }
  // Call sites (in other computations) calling this one, in module order.
  const std::vector<CallSite>& caller_callsites() const { return caller_callsites_; }
  // Distinct callees / callers, in first-seen order.
  const std::vector<HloComputation*>& callees() const { return callees_; }
  const std::vector<HloComputation*>& callers() const { return callers_; }
  CallContext context() const { return context_; }

 private:
  friend class CallGraph;
  HloComputation* computation_;
  std::vector<CallSite> callsites_;
  std::vector<CallSite> caller_callsites_;
  std::vector<HloComputation*> callees_;
  std::vector<HloComputation*> callers_;
  CallContext context_ = CallContext::kNone;
};

class CallGraph {
 public:
  // Builds the graph of `module` (every computation, reachable or not).
  static std::unique_ptr<CallGraph> Build(const HloModule* module);

  // Precondition: `computation` belongs to the module.
  const CallGraphNode& GetNode(const HloComputation* computation) const;
  // Nodes in module order.
  const std::vector<std::unique_ptr<CallGraphNode>>& nodes() const { return nodes_; }

  // Calls `visitor` on every node, callees before callers (a DFS from each
  // computation without callers, in module order; callees in first-seen
  // order). Stops at the first error.
  absl::Status VisitNodes(const std::function<absl::Status(const CallGraphNode&)>& visitor) const;

 private:
  CallGraphNode& GetMutableNode(const HloComputation* computation);
  void SetCallContexts();

  const HloModule* module_ = nullptr;
  std::vector<std::unique_ptr<CallGraphNode>> nodes_;
  absl::flat_hash_map<const HloComputation*, CallGraphNode*> node_index_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_CALL_GRAPH_H_
