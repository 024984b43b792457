#include "hmo/ir/instruction_source.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_opcode.h"

namespace hmo {
namespace {

std::string FrameText(std::string_view file, int64_t line, std::string_view function) {
  std::string text = absl::StrCat(std::string(file), ":", line);
  if (!function.empty()) absl::StrAppend(&text, " (", std::string(function), ")");
  return text;
}

// The value of `field="..."` (quoted) or `field=N` in a metadata text, or
// empty.
std::string_view MetadataField(std::string_view metadata, std::string_view field) {
  const std::string key = absl::StrCat(std::string(field), "=");
  size_t pos = 0;
  while ((pos = metadata.find(key, pos)) != std::string_view::npos) {
    // A whole field name: at the start or after a separator.
    if (pos == 0 || metadata[pos - 1] == ' ' || metadata[pos - 1] == '{') break;
    pos += key.size();
  }
  if (pos == std::string_view::npos) return {};
  std::string_view rest = metadata.substr(pos + key.size());
  if (!rest.empty() && rest.front() == '"') {
    const size_t end = rest.find('"', 1);
    return end == std::string_view::npos ? std::string_view() : rest.substr(1, end - 1);
  }
  size_t end = 0;
  while (end < rest.size() && rest[end] >= '0' && rest[end] <= '9') ++end;
  return rest.substr(0, end);
}

// The call stack `instruction`'s own metadata names (InstructionCallStack
// without the fusion's fallback).
std::vector<std::string> OwnCallStack(const HloInstruction& instruction) {
  std::vector<std::string> stack;
  const std::string_view metadata = instruction.metadata_text();
  if (metadata.empty()) return stack;
  const HloComputation* computation = instruction.parent();
  const HloModule* module = computation == nullptr ? nullptr : computation->parent();
  const int64_t frame_id = StackFrameIdFromMetadata(metadata);
  if (module != nullptr && module->stack_frame_index().HasFrame(frame_id)) {
    for (const SourceFrame& frame : module->stack_frame_index().CallStack(frame_id)) {
      stack.push_back(FrameText(frame.file, frame.line, frame.function));
    }
    return stack;
  }
  const std::string_view file = MetadataField(metadata, "source_file");
  int64_t line = 0;
  if (!file.empty() &&
      absl::SimpleAtoi(std::string(MetadataField(metadata, "source_line")), &line)) {
    stack.push_back(FrameText(file, line, ""));
  }
  return stack;
}

bool HasOwnSource(const HloInstruction& instruction) { return !OwnCallStack(instruction).empty(); }

// Calls `visit` on each instruction `fusion` fused, nested fusions' in place,
// in definition order, parameters left out, until it returns true (then
// returns true). `visited` keeps a computation fused twice (or a malformed
// module's cycle) from being walked again.
template <typename Visit>
bool ForEachFusedInstruction(const HloInstruction& fusion,
                             absl::flat_hash_set<const HloComputation*>& visited, Visit& visit) {
  const HloComputation* fused = fusion.fused_instructions_computation();
  if (fused == nullptr || !visited.insert(fused).second) return false;
  for (const HloInstruction* instruction : fused->instructions()) {
    if (instruction->opcode() == HloOpcode::kParameter) continue;
    if (visit(*instruction)) return true;
    if (instruction->opcode() == HloOpcode::kFusion &&
        ForEachFusedInstruction(*instruction, visited, visit)) {
      return true;
    }
  }
  return false;
}

}  // namespace

const HloInstruction& SourceInstruction(const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kFusion || HasOwnSource(instruction)) return instruction;
  // The fused root, through nested fusions: the value the fusion defines.
  absl::flat_hash_set<const HloComputation*> roots_seen;
  for (const HloInstruction* root = instruction.fused_expression_root();
       root != nullptr && root->opcode() != HloOpcode::kParameter &&
       roots_seen.insert(root->parent()).second;
       root = root->fused_expression_root()) {
    if (HasOwnSource(*root)) return *root;
    if (root->opcode() != HloOpcode::kFusion) break;
  }
  const HloInstruction* first = nullptr;
  absl::flat_hash_set<const HloComputation*> visited;
  auto first_sourced = [&first](const HloInstruction& fused) {
    if (!HasOwnSource(fused)) return false;
    first = &fused;
    return true;
  };
  ForEachFusedInstruction(instruction, visited, first_sourced);
  return first != nullptr ? *first : instruction;
}

std::vector<std::string> InstructionCallStack(const HloInstruction& instruction) {
  return OwnCallStack(SourceInstruction(instruction));
}

std::string InstructionSource(const HloInstruction& instruction) {
  std::vector<std::string> stack = InstructionCallStack(instruction);
  return stack.empty() ? std::string() : std::move(stack.front());
}

std::string InstructionOpName(const HloInstruction& instruction) {
  return SourceInstruction(instruction).metadata_op_name();
}

std::vector<std::string> FusedSources(const HloInstruction& fusion) {
  std::vector<std::string> sources;
  absl::flat_hash_set<std::string> seen;
  absl::flat_hash_set<const HloComputation*> visited;
  auto collect = [&](const HloInstruction& fused) {
    std::vector<std::string> stack = OwnCallStack(fused);
    if (!stack.empty() && seen.insert(stack.front()).second) {
      sources.push_back(std::move(stack.front()));
    }
    return false;
  };
  ForEachFusedInstruction(fusion, visited, collect);
  return sources;
}

std::string FusedSourcesText(const std::vector<std::string>& sources) {
  if (sources.empty()) return "";
  const size_t named = std::min(sources.size(), kNamedFusedSources);
  std::string text = absl::StrCat(
      "fuses ops from ",
      absl::StrJoin(sources.begin(), sources.begin() + static_cast<std::ptrdiff_t>(named), ", "));
  if (named < sources.size()) absl::StrAppend(&text, " and ", sources.size() - named, " more");
  return text;
}

}  // namespace hmo
