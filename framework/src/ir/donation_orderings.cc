#include "hmo/ir/donation_orderings.h"

#include <algorithm>
#include <map>
#include <utility>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_input_output_alias_config.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/instruction_reachability.h"

namespace hmo {
namespace {

// The instruction at output leaf `index` of the root's tuple tree, or null
// when a non-tuple holds the leaf.
const HloInstruction* OutputWriter(const HloInstruction* root, const ShapeIndex& index) {
  for (int64_t i : index) {
    if (root->opcode() != HloOpcode::kTuple || i < 0 || i >= root->operand_count()) return nullptr;
    root = root->operand(i);
  }
  return root;
}

// The instructions that read parameter `parameter`'s buffer at `index`:
// users of the get-tuple-element chain down to it (a user of a tuple above
// it reads it too).
std::vector<const HloInstruction*> ParameterReaders(const HloInstruction* parameter,
                                                    const ShapeIndex& index) {
  std::vector<const HloInstruction*> readers;
  std::vector<const HloInstruction*> level = {parameter};
  for (int64_t i : index) {
    std::vector<const HloInstruction*> next;
    for (const HloInstruction* value : level) {
      for (const HloInstruction* user : value->users()) {
        if (user->opcode() != HloOpcode::kGetTupleElement) {
          readers.push_back(user);
        } else if (user->tuple_index() == i) {
          next.push_back(user);
        }
      }
    }
    level = std::move(next);
  }
  for (const HloInstruction* value : level) {
    for (const HloInstruction* user : value->users()) readers.push_back(user);
  }
  return readers;
}

}  // namespace

std::vector<DonationOrdering> DonationOrderings(const HloComputation& computation) {
  std::vector<DonationOrdering> orderings;
  const HloModule* module = computation.parent();
  const HloInstruction* root = computation.root_instruction();
  if (module == nullptr || module->entry_computation() != &computation || root == nullptr) {
    return orderings;
  }
  for (const auto& [output_index, alias] : module->input_output_alias_config().aliases()) {
    if (alias.parameter_number < 0 || alias.parameter_number >= computation.num_parameters()) {
      continue;
    }
    const HloInstruction* writer = OutputWriter(root, output_index);
    if (writer == nullptr || writer->opcode() == HloOpcode::kTuple ||
        writer->opcode() == HloOpcode::kParameter ||
        writer->opcode() == HloOpcode::kGetTupleElement ||
        writer->opcode() == HloOpcode::kBitcast) {
      continue;
    }
    const HloInstruction* parameter = computation.parameter_instruction(alias.parameter_number);
    for (const HloInstruction* reader : ParameterReaders(parameter, alias.parameter_index)) {
      if (reader == writer || reader == root || DependsOn(*reader, *writer)) continue;
      const bool seen = std::any_of(orderings.begin(), orderings.end(), [&](const auto& o) {
        return o.reader == reader && o.writer == writer;
      });
      if (!seen) orderings.push_back({reader, writer, output_index});
    }
  }
  return orderings;
}

std::vector<ShapeIndex> DonationCycle(const HloComputation& computation,
                                      const std::vector<DonationOrdering>& orderings) {
  if (orderings.empty()) return {};
  struct Edge {
    const HloInstruction* to;
    const ShapeIndex* alias;  // null: a data or control edge
  };
  std::map<const HloInstruction*, std::vector<Edge>> edges;
  for (const HloInstruction* instruction : computation.instructions()) {
    for (const HloInstruction* user : instruction->users()) {
      edges[instruction].push_back({user, nullptr});
    }
    for (const HloInstruction* successor : instruction->control_successors()) {
      edges[instruction].push_back({successor, nullptr});
    }
  }
  for (const DonationOrdering& ordering : orderings) {
    edges[ordering.reader].push_back({ordering.writer, &ordering.output_index});
  }
  // Depth-first search; a grey node reached again closes a cycle, whose
  // donation edges are on the stack from that node up.
  enum Color : uint8_t { kWhite, kGrey, kBlack };
  std::map<const HloInstruction*, Color> color;
  struct Frame {
    const HloInstruction* node;
    size_t next;
    const ShapeIndex* via;  // the alias of the edge that reached node, or null
  };
  for (const HloInstruction* start : computation.instructions()) {
    if (color[start] != kWhite) continue;
    std::vector<Frame> stack = {{start, 0, nullptr}};
    color[start] = kGrey;
    while (!stack.empty()) {
      Frame& frame = stack.back();
      const std::vector<Edge>& out = edges[frame.node];
      if (frame.next == out.size()) {
        color[frame.node] = kBlack;
        stack.pop_back();
        continue;
      }
      const Edge edge = out[frame.next++];
      if (color[edge.to] == kWhite) {
        color[edge.to] = kGrey;
        stack.push_back({edge.to, 0, edge.alias});
      } else if (color[edge.to] == kGrey) {
        std::vector<ShapeIndex> on_cycle;
        if (edge.alias != nullptr) on_cycle.push_back(*edge.alias);
        for (size_t i = stack.size(); i-- > 0 && stack[i].node != edge.to;) {
          if (stack[i].via != nullptr) on_cycle.push_back(*stack[i].via);
        }
        std::sort(on_cycle.begin(), on_cycle.end());
        on_cycle.erase(std::unique(on_cycle.begin(), on_cycle.end()), on_cycle.end());
        if (!on_cycle.empty()) return on_cycle;
      }
    }
  }
  return {};
}

}  // namespace hmo
