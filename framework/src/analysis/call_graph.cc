#include "hmo/analysis/call_graph.h"

#include <algorithm>
#include <deque>

#include "absl/container/flat_hash_set.h"
#include "analysis_check.h"
#include "hmo/base/status_macros.h"

namespace hmo {

CallContext GetInstructionCallContext(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kWhile:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return CallContext::kControlFlow;
    case HloOpcode::kAllReduce:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kScatter:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kScan:
    case HloOpcode::kSort:
    case HloOpcode::kTopK:
    case HloOpcode::kFusion:
    case HloOpcode::kCustomCall:
      return CallContext::kEmbedded;
    default:
      return CallContext::kNone;
  }
}

std::vector<HloComputation*> ComputationPostOrderLikeXla(const HloModule& module) {
  absl::flat_hash_set<const HloComputation*> called;
  for (HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) called.insert(callee);
    }
  }
  std::vector<HloComputation*> post_order;
  absl::flat_hash_set<const HloComputation*> added;
  std::function<void(HloComputation*)> visit = [&](HloComputation* computation) {
    if (!added.insert(computation).second) return;
    for (const HloInstruction* instruction : computation->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) visit(callee);
    }
    post_order.push_back(computation);
  };
  for (HloComputation* computation : module.computations()) {
    if (!called.contains(computation)) visit(computation);
  }
  // Computations only reachable through a cycle of calls (invalid HLO) are
  // appended in module order so every computation appears once.
  for (HloComputation* computation : module.computations()) {
    if (!added.contains(computation)) visit(computation);
  }
  return post_order;
}

namespace {

CallContext UnionContexts(CallContext a, CallContext b) {
  if (a == CallContext::kNone) return b;
  if (b == CallContext::kNone) return a;
  if (a == b) return a;
  return CallContext::kBoth;
}

}  // namespace

std::unique_ptr<CallGraph> CallGraph::Build(const HloModule* module) {
  auto graph = std::unique_ptr<CallGraph>(new CallGraph());
  graph->module_ = module;
  for (HloComputation* computation : module->computations()) {
    graph->nodes_.push_back(std::make_unique<CallGraphNode>(computation));
    graph->node_index_[computation] = graph->nodes_.back().get();
  }
  absl::flat_hash_set<std::pair<const HloComputation*, const HloComputation*>> edges;
  for (const auto& node : graph->nodes_) {
    for (HloInstruction* instruction : node->computation()->instructions()) {
      if (instruction->called_computations().empty()) continue;
      CallContext context = GetInstructionCallContext(instruction->opcode());
      // An unknown caller of a computation is treated as applying it inside
      // the op, the conservative choice for dataflow.
      if (context == CallContext::kNone) context = CallContext::kEmbedded;
      CallSite callsite(instruction, instruction->called_computations(), context);
      for (HloComputation* callee : instruction->called_computations()) {
        auto it = graph->node_index_.find(callee);
        if (it == graph->node_index_.end()) continue;
        CallGraphNode* callee_node = it->second;
        callee_node->caller_callsites_.push_back(callsite);
        // A set, not a scan of the lists: a dump's entry calls one fused
        // computation per fusion, hundreds of thousands of callees.
        if (edges.insert({node->computation(), callee}).second) {
          callee_node->callers_.push_back(node->computation());
          node->callees_.push_back(callee);
        }
      }
      node->callsites_.push_back(std::move(callsite));
    }
  }
  graph->SetCallContexts();
  return graph;
}

void CallGraph::SetCallContexts() {
  std::deque<CallGraphNode*> worklist;
  for (const auto& node : nodes_) {
    if (node->callers_.empty()) {
      node->context_ = CallContext::kControlFlow;
      worklist.push_back(node.get());
    }
  }
  while (!worklist.empty()) {
    CallGraphNode* node = worklist.front();
    worklist.pop_front();
    for (const CallSite& callsite : node->callsites_) {
      for (HloComputation* callee : callsite.called_computations()) {
        CallGraphNode& callee_node = GetMutableNode(callee);
        const CallContext context_to_add =
            callsite.context() == CallContext::kEmbedded ? CallContext::kEmbedded : node->context_;
        const CallContext new_context = UnionContexts(context_to_add, callee_node.context_);
        if (new_context != callee_node.context_) {
          callee_node.context_ = new_context;
          worklist.push_back(&callee_node);
        }
      }
    }
  }
}

const CallGraphNode& CallGraph::GetNode(const HloComputation* computation) const {
  auto it = node_index_.find(computation);
  HMO_CHECK(it != node_index_.end()) << "computation not in call graph: " << computation->name();
  return *it->second;
}

CallGraphNode& CallGraph::GetMutableNode(const HloComputation* computation) {
  auto it = node_index_.find(computation);
  HMO_CHECK(it != node_index_.end()) << "computation not in call graph: " << computation->name();
  return *it->second;
}

absl::Status CallGraph::VisitNodes(
    const std::function<absl::Status(const CallGraphNode&)>& visitor) const {
  absl::flat_hash_set<const CallGraphNode*> visited;
  std::function<absl::Status(const CallGraphNode&)> visit =
      [&](const CallGraphNode& node) -> absl::Status {
    if (!visited.insert(&node).second) return absl::OkStatus();
    for (HloComputation* callee : node.callees()) {
      HMO_RETURN_IF_ERROR(visit(GetNode(callee)));
    }
    return visitor(node);
  };
  for (const auto& node : nodes_) {
    if (node->callers().empty()) HMO_RETURN_IF_ERROR(visit(*node));
  }
  return absl::OkStatus();
}

}  // namespace hmo
