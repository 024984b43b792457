#include "hmo/verifier/alias_verifier.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/instruction_reachability.h"
#include "str_util.h"

namespace hmo {

using verifier_internal::StrAppend;
using verifier_internal::StrCat;
namespace {

// Parameter shape by number, or null when the entry has no such parameter.
const Shape* ParameterShape(const HloComputation& entry, int64_t number) {
  if (number < 0 || number >= entry.num_parameters()) return nullptr;
  const HloInstruction* p = entry.parameter_instruction(number);
  return p ? &p->shape() : nullptr;
}

// The instruction at output leaf `index` of the entry's root tuple tree, or
// null when a non-tuple holds the leaf.
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

// A donated parameter's buffer is overwritten by the output aliased with it,
// so every other reader of the parameter runs before the output's writer.
// With the data and control edges these orders must leave the entry acyclic;
// returns the aliases (indices into `aliases`) on a cycle, or none.
std::vector<int64_t> DonationCycle(
    const HloComputation& entry,
    const std::vector<std::pair<ShapeIndex, HloInputOutputAliasConfig::Alias>>& aliases) {
  struct Edge {
    const HloInstruction* to;
    int64_t alias;  // -1: a data or control edge
  };
  std::map<const HloInstruction*, std::vector<Edge>> edges;
  for (const HloInstruction* instruction : entry.instructions()) {
    for (const HloInstruction* user : instruction->users())
      edges[instruction].push_back({user, -1});
    for (const HloInstruction* successor : instruction->control_successors()) {
      edges[instruction].push_back({successor, -1});
    }
  }
  bool any = false;
  for (int64_t k = 0; k < static_cast<int64_t>(aliases.size()); ++k) {
    const auto& [output_index, alias] = aliases[k];
    const HloInstruction* writer = OutputWriter(entry.root_instruction(), output_index);
    const HloInstruction* parameter = entry.parameter_instruction(alias.parameter_number);
    // A writer that is a parameter, tuple element or bitcast writes nothing.
    if (writer == nullptr || writer->opcode() == HloOpcode::kParameter ||
        writer->opcode() == HloOpcode::kGetTupleElement ||
        writer->opcode() == HloOpcode::kBitcast) {
      continue;
    }
    for (const HloInstruction* reader : ParameterReaders(parameter, alias.parameter_index)) {
      // A reader that needs the writer's result can only run after it: the
      // backends keep a copy of the parameter there (as the scheduler's
      // donation orderings leave such readers out), so no order is imposed.
      if (reader == writer || reader == entry.root_instruction() || DependsOn(*reader, *writer)) {
        continue;
      }
      edges[reader].push_back({writer, k});
      any = true;
    }
  }
  if (!any) return {};
  // Depth-first search; a grey node reached again closes a cycle, whose
  // donation edges are on the stack from that node up.
  enum Color : uint8_t { kWhite, kGrey, kBlack };
  std::map<const HloInstruction*, Color> color;
  struct Frame {
    const HloInstruction* node;
    size_t next;
    int64_t via;  // the alias of the edge that reached node, or -1
  };
  for (const HloInstruction* start : entry.instructions()) {
    if (color[start] != kWhite) continue;
    std::vector<Frame> stack = {{start, 0, -1}};
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
        std::vector<int64_t> on_cycle;
        if (edge.alias >= 0) on_cycle.push_back(edge.alias);
        for (size_t i = stack.size(); i-- > 0 && stack[i].node != edge.to;) {
          if (stack[i].via >= 0) on_cycle.push_back(stack[i].via);
        }
        std::sort(on_cycle.begin(), on_cycle.end());
        on_cycle.erase(std::unique(on_cycle.begin(), on_cycle.end()), on_cycle.end());
        if (!on_cycle.empty()) return on_cycle;
      }
    }
  }
  return {};
}

}  // namespace

void CheckModuleAliasing(const HloModule& module, VerifierErrorSink& sink) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr || entry->root_instruction() == nullptr) return;
  const Shape& result = entry->root_instruction()->shape();
  const HloInputOutputAliasConfig& config = module.input_output_alias_config();

  std::map<std::pair<int64_t, ShapeIndex>, ShapeIndex> aliased_params;
  for (const auto& [output_index, alias] : config.aliases()) {
    if (sink.full()) return;
    std::string entry_text =
        StrCat("input_output_alias entry ", ShapeIndexToString(output_index), ": ",
               alias.ToString());
    if (!ShapeUtil::IndexIsValid(result, output_index)) {
      sink.AddModuleError("alias-output-index",
                          StrCat(entry_text, ": output index ",
                                 ShapeIndexToString(output_index),
                                 " is not in the entry result shape ",
                                 result.ToString(false)));
      continue;
    }
    const Shape* param = ParameterShape(*entry, alias.parameter_number);
    if (param == nullptr) {
      sink.AddModuleError("alias-parameter",
                          StrCat(entry_text, ": entry computation ", entry->name(),
                                 " has no parameter ", alias.parameter_number, " (it has ",
                                 entry->num_parameters(), ")"));
      continue;
    }
    if (!ShapeUtil::IndexIsValid(*param, alias.parameter_index)) {
      sink.AddModuleError("alias-parameter",
                          StrCat(entry_text, ": parameter index ",
                                 ShapeIndexToString(alias.parameter_index),
                                 " is not in parameter ", alias.parameter_number,
                                 " of shape ", param->ToString(false)));
      continue;
    }
    auto [it, inserted] =
        aliased_params.emplace(std::make_pair(alias.parameter_number, alias.parameter_index),
                               output_index);
    if (!inserted) {
      sink.AddModuleError("alias-duplicate-parameter",
                          StrCat(entry_text, ": parameter ", alias.parameter_number, " ",
                                 ShapeIndexToString(alias.parameter_index),
                                 " is already aliased with output ",
                                 ShapeIndexToString(it->second)));
      continue;
    }
    const Shape& out = ShapeUtil::GetSubshape(result, output_index);
    const Shape& in = ShapeUtil::GetSubshape(*param, alias.parameter_index);
    if (!out.IsArray() || !in.IsArray()) {
      sink.AddModuleError("alias-shape",
                          StrCat(entry_text, ": aliased shapes must be arrays, got output ",
                                 out.ToString(false), " and parameter ", in.ToString(false)));
      continue;
    }
    int64_t out_bytes = ShapeUtil::ByteSizeOf(out);
    int64_t in_bytes = ShapeUtil::ByteSizeOf(in);
    if (out_bytes != in_bytes) {
      sink.AddModuleError("alias-size",
                          StrCat(entry_text, ": output ", out.ToString(true), " (", out_bytes,
                                 " bytes) and parameter ", in.ToString(true), " (", in_bytes,
                                 " bytes) differ in size"));
      continue;
    }
    if (out.memory_space() != in.memory_space()) {
      sink.AddModuleError("alias-memory-space",
                          StrCat(entry_text, ": output ", out.ToString(true),
                                 " is in memory space ", out.memory_space(),
                                 " but parameter ", in.ToString(true), " is in memory space ",
                                 in.memory_space()));
    }
  }

  // Orders between donations, once every alias is well formed.
  if (sink.empty() && !config.aliases().empty()) {
    std::vector<std::pair<ShapeIndex, HloInputOutputAliasConfig::Alias>> aliases(
        config.aliases().begin(), config.aliases().end());
    const std::vector<int64_t> cycle = DonationCycle(*entry, aliases);
    if (!cycle.empty()) {
      std::string listed;
      for (int64_t k : cycle) {
        StrAppend(&listed, listed.empty() ? "" : " and ", ShapeIndexToString(aliases[k].first),
                  ": ", aliases[k].second.ToString());
      }
      sink.AddModuleError(
          "alias-cycle",
          StrCat("input_output_alias ", listed,
                 ": each donated parameter must be read before the output aliased with it is "
                 "written, and these orders form a cycle with the data dependencies"));
    }
  }

  for (const HloBufferDonorConfig::BufferDonor& donor :
       module.buffer_donor_config().buffer_donors()) {
    if (sink.full()) return;
    std::string donor_text = StrCat("buffer_donor (", donor.param_number, ", ",
                                    ShapeIndexToString(donor.param_index), ")");
    const Shape* param = ParameterShape(*entry, donor.param_number);
    if (param == nullptr) {
      sink.AddModuleError("buffer-donor",
                          StrCat(donor_text, ": entry computation ", entry->name(),
                                 " has no parameter ", donor.param_number));
      continue;
    }
    if (!ShapeUtil::IndexIsValid(*param, donor.param_index)) {
      sink.AddModuleError("buffer-donor",
                          StrCat(donor_text, ": index is not in parameter ",
                                 donor.param_number, " of shape ", param->ToString(false)));
      continue;
    }
    if (config.ParameterHasAlias(donor.param_number, donor.param_index)) {
      sink.AddModuleError("buffer-donor-aliased",
                          StrCat(donor_text, ": the parameter buffer is also in ",
                                 "input_output_alias"));
    }
  }
}

absl::Status VerifyModuleAliasing(const HloModule& module) {
  VerifierErrorSink sink(module, /*limit=*/1);
  CheckModuleAliasing(module, sink);
  if (sink.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(sink.errors().front().ToString());
}

}  // namespace hmo
