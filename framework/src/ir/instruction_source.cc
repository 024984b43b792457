#include "hmo/ir/instruction_source.h"

#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"

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

}  // namespace

std::vector<std::string> InstructionCallStack(const HloInstruction& instruction) {
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

std::string InstructionSource(const HloInstruction& instruction) {
  std::vector<std::string> stack = InstructionCallStack(instruction);
  return stack.empty() ? std::string() : std::move(stack.front());
}

}  // namespace hmo
