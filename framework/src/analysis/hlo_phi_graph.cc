#include "hlo_phi_graph.h"

#include <algorithm>
#include <deque>

#include "absl/container/flat_hash_set.h"
#include "analysis_check.h"

namespace hmo {

PhiGraph::Node* PhiGraph::CreateOrReuseNode(const HloValue& value) {
  auto it = value_id_to_node_.find(value.id());
  if (it != value_id_to_node_.end()) return it->second;
  node_storage_.push_back(std::make_unique<Node>());
  Node* node = node_storage_.back().get();
  node->value_id = value.id();
  value_id_to_node_[value.id()] = node;
  node_to_value_id_[node].push_back(value.id());
  return node;
}

void PhiGraph::RegisterPhi(const HloValue& value, absl::Span<const HloValue* const> inputs) {
  Node* node = CreateOrReuseNode(value);
  HMO_CHECK(value.is_phi());
  node->is_phi = true;
  node->operands.clear();
  for (const HloValue* input : inputs) node->operands.push_back(CreateOrReuseNode(*input));
}

bool PhiGraph::InputsEqualTo(const HloValue& value,
                             absl::Span<const HloValue* const> inputs) const {
  auto it = value_id_to_node_.find(value.id());
  HMO_CHECK(it != value_id_to_node_.end());
  absl::flat_hash_set<HloValue::Id> existing;
  for (const Node* operand : it->second->operands) existing.insert(operand->value_id);
  absl::flat_hash_set<HloValue::Id> proposed;
  for (const HloValue* input : inputs) proposed.insert(input->id());
  return existing == proposed;
}

HloValue::Id PhiGraph::FindOptimizedValue(HloValue::Id id) const {
  auto it = value_id_to_node_.find(id);
  HMO_CHECK(it != value_id_to_node_.end());
  HMO_CHECK(!it->second->mark_as_dead);
  return it->second->value_id;
}

void PhiGraph::ReplaceNodeWith(Node* node, Node* replace) {
  HMO_CHECK(node->is_phi);
  if (node->mark_as_dead) return;  // already replaced
  if (replace->mark_as_dead) {
    // Replace with whatever replaced `replace`.
    auto it = value_id_to_node_.find(replace->value_id);
    HMO_CHECK(it != value_id_to_node_.end());
    ReplaceNodeWith(node, it->second);
    return;
  }
  for (Node* user : node->users) std::replace(user->operands.begin(), user->operands.end(), node, replace);
  for (Node* operand : node->operands) std::replace(operand->users.begin(), operand->users.end(), node, replace);
  std::vector<HloValue::Id>& ids = node_to_value_id_[node];
  for (HloValue::Id id : ids) value_id_to_node_[id] = replace;
  std::vector<HloValue::Id>& replace_ids = node_to_value_id_[replace];
  replace_ids.insert(replace_ids.end(), ids.begin(), ids.end());
  ids.clear();
  node->mark_as_dead = true;
}

void PhiGraph::Optimize() {
  for (auto& node : node_storage_) {
    for (Node* input : node->operands) input->users.push_back(node.get());
  }
  bool changed = true;
  while (changed) {
    changed = false;
    absl::flat_hash_set<Node*> checked_for_closure;
    for (auto& owned : node_storage_) {
      Node* node = owned.get();
      if (!node->is_phi || node->mark_as_dead) continue;
      // Drop self references.
      node->operands.erase(std::remove(node->operands.begin(), node->operands.end(), node),
                           node->operands.end());
      node->users.erase(std::remove(node->users.begin(), node->users.end(), node),
                        node->users.end());
      // XLA CHECK-fails on a phi fed only by itself; leave such a phi alone.
      if (node->operands.empty()) continue;
      const bool all_inputs_are_same =
          std::all_of(node->operands.begin(), node->operands.end(),
                      [&](Node* n) { return n == node->operands[0]; });
      if (all_inputs_are_same) {
        ReplaceNodeWith(node, node->operands[0]);
        changed = true;
        continue;
      }
      if (checked_for_closure.contains(node)) continue;
      // A closed group of phis fed by exactly one non-phi value collapses to
      // that value. The BFS is in insertion order so the result never depends
      // on hashing.
      std::vector<Node*> workset_order;
      absl::flat_hash_set<Node*> workset;
      std::deque<Node*> worklist{node};
      Node* non_phi = nullptr;
      while (!worklist.empty()) {
        Node* todo = worklist.front();
        worklist.pop_front();
        if (workset.contains(todo)) continue;
        checked_for_closure.insert(todo);
        workset.insert(todo);
        workset_order.push_back(todo);
        for (Node* operand : todo->operands) worklist.push_back(operand);
        if (!todo->is_phi) {
          if (non_phi != nullptr && non_phi != todo) {
            non_phi = nullptr;  // two distinct non-phi inputs: keep the phis
            break;
          }
          non_phi = todo;
        }
      }
      if (non_phi != nullptr) {
        for (Node* member : workset_order) {
          if (!member->is_phi) continue;
          ReplaceNodeWith(member, non_phi);
          changed = true;
        }
      }
    }
  }
}

}  // namespace hmo
