#ifndef HMO_SRC_ANALYSIS_HLO_PHI_GRAPH_H_
#define HMO_SRC_ANALYSIS_HLO_PHI_GRAPH_H_

// PhiGraph (private to HloDataflowAnalysis): the phi values SSA-form dataflow
// created and their inputs, and the simplification that replaces redundant
// phis by the single value they merge (XLA's xla/service/hlo_phi_graph.h):
//   phi(A, A, ..., A) => A, phi(A, self) => A, and a closed group of phis
//   whose only non-phi input is one value D => D.

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "hmo/analysis/hlo_value.h"

namespace hmo {

class PhiGraph {
 public:
  // Records that phi `value` merges `inputs` (replacing earlier inputs).
  void RegisterPhi(const HloValue& value, absl::Span<const HloValue* const> inputs);
  // Whether `value`'s registered inputs are the same set as `inputs`.
  bool InputsEqualTo(const HloValue& value, absl::Span<const HloValue* const> inputs) const;
  // Runs the simplification to a fixed point.
  void Optimize();
  // The value that replaces `id` after Optimize (itself when kept).
  HloValue::Id FindOptimizedValue(HloValue::Id id) const;

 private:
  struct Node {
    bool is_phi = false;
    bool mark_as_dead = false;
    HloValue::Id value_id = -1;
    std::vector<Node*> operands;
    std::vector<Node*> users;
  };
  Node* CreateOrReuseNode(const HloValue& value);
  void ReplaceNodeWith(Node* node, Node* replace);

  std::vector<std::unique_ptr<Node>> node_storage_;
  absl::flat_hash_map<HloValue::Id, Node*> value_id_to_node_;
  absl::flat_hash_map<Node*, std::vector<HloValue::Id>> node_to_value_id_;
};

}  // namespace hmo

#endif  // HMO_SRC_ANALYSIS_HLO_PHI_GRAPH_H_
