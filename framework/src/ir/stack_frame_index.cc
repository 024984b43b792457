#include "hmo/ir/stack_frame_index.h"

#include <charconv>

#include "absl/strings/escaping.h"
#include "str_cat.h"

namespace hmo {

using ir_internal::AbslView;
using ir_internal::StrAppend;
using ir_internal::StrCat;

namespace {

template <typename T>
int64_t Append(std::vector<T>* table, T value) {
  table->push_back(std::move(value));
  return static_cast<int64_t>(table->size());
}

bool InRange(int64_t id, size_t size) { return id >= 1 && id <= static_cast<int64_t>(size); }

}  // namespace

int64_t StackFrameIndex::AddFileName(std::string name) { return Append(&file_names_, std::move(name)); }
int64_t StackFrameIndex::AddFunctionName(std::string name) {
  return Append(&function_names_, std::move(name));
}
int64_t StackFrameIndex::AddFileLocation(const FileLocation& location) {
  return Append(&file_locations_, location);
}
int64_t StackFrameIndex::AddStackFrame(const StackFrame& frame) { return Append(&stack_frames_, frame); }

absl::Status StackFrameIndex::Validate() const {
  for (size_t i = 0; i < file_locations_.size(); ++i) {
    const FileLocation& l = file_locations_[i];
    if (!InRange(l.file_name_id, file_names_.size())) {
      return absl::InvalidArgumentError(StrCat("file location ", i + 1, " refers to file name ",
                                               l.file_name_id, " of ", file_names_.size()));
    }
    if (!InRange(l.function_name_id, function_names_.size())) {
      return absl::InvalidArgumentError(StrCat("file location ", i + 1, " refers to function name ",
                                               l.function_name_id, " of ", function_names_.size()));
    }
  }
  for (size_t i = 0; i < stack_frames_.size(); ++i) {
    const StackFrame& f = stack_frames_[i];
    const int64_t id = static_cast<int64_t>(i) + 1;
    if (!InRange(f.file_location_id, file_locations_.size())) {
      return absl::InvalidArgumentError(StrCat("stack frame ", id, " refers to file location ",
                                               f.file_location_id, " of ", file_locations_.size()));
    }
    // Callers are indexed before their callees, which also rules out cycles.
    if (f.parent_frame_id < 0 || f.parent_frame_id >= id) {
      return absl::InvalidArgumentError(
          StrCat("stack frame ", id, " has parent frame ", f.parent_frame_id,
                 ": a parent must be an earlier frame (or none)"));
    }
  }
  return absl::OkStatus();
}

std::vector<SourceFrame> StackFrameIndex::CallStack(int64_t frame_id) const {
  std::vector<SourceFrame> stack;
  while (HasFrame(frame_id)) {
    const StackFrame& f = stack_frames_[frame_id - 1];
    const FileLocation& l = file_locations_[f.file_location_id - 1];
    stack.push_back(SourceFrame{file_names_[l.file_name_id - 1], function_names_[l.function_name_id - 1],
                                l.line, l.column, l.end_line, l.end_column});
    // Parents precede their children (Validate), so this terminates.
    if (f.parent_frame_id >= frame_id) break;
    frame_id = f.parent_frame_id;
  }
  return stack;
}

std::string StackFrameIndex::ToString() const {
  if (empty()) return "";
  std::string out;
  auto quoted_table = [&](std::string_view title, const std::vector<std::string>& names) {
    StrAppend(&out, title, "\n");
    for (size_t i = 0; i < names.size(); ++i) {
      StrAppend(&out, i + 1, " \"", absl::CEscape(AbslView(names[i])), "\"\n");
    }
    out += "\n";
  };
  quoted_table("FileNames", file_names_);
  quoted_table("FunctionNames", function_names_);
  out += "FileLocations\n";
  for (size_t i = 0; i < file_locations_.size(); ++i) {
    const FileLocation& l = file_locations_[i];
    StrAppend(&out, i + 1, " {file_name_id=", l.file_name_id, " function_name_id=", l.function_name_id,
              " line=", l.line, " end_line=", l.end_line, " column=", l.column,
              " end_column=", l.end_column, "}\n");
  }
  out += "\nStackFrames\n";
  for (size_t i = 0; i < stack_frames_.size(); ++i) {
    const StackFrame& f = stack_frames_[i];
    StrAppend(&out, i + 1, " {file_location_id=", f.file_location_id,
              " parent_frame_id=", f.parent_frame_id + 1, "}\n");
  }
  out += "\n";
  return out;
}

int64_t StackFrameIdFromMetadata(std::string_view metadata) {
  // Keys inside metadata are separated by spaces; string values are quoted,
  // so skip them to avoid matching inside an op_name.
  constexpr std::string_view kKey = "stack_frame_id=";
  bool in_string = false;
  for (size_t i = 0; i < metadata.size(); ++i) {
    const char c = metadata[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    const bool at_key_start = i == 0 || metadata[i - 1] == ' ' || metadata[i - 1] == '{';
    if (at_key_start && metadata.substr(i, kKey.size()) == kKey) {
      const char* begin = metadata.data() + i + kKey.size();
      int64_t id = 0;
      auto [ptr, ec] = std::from_chars(begin, metadata.data() + metadata.size(), id);
      return ec == std::errc() && ptr != begin ? id : 0;
    }
  }
  return 0;
}

}  // namespace hmo
