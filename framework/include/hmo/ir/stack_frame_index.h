#ifndef HMO_IR_STACK_FRAME_INDEX_H_
#define HMO_IR_STACK_FRAME_INDEX_H_

// XLA's stack-frame index: the source locations of a module's instructions,
// as four tables that current XLA writes after the `HloModule` line
// (`FileNames`, `FunctionNames`, `FileLocations`, `StackFrames`), referred
// to by `stack_frame_id=N` in instruction metadata.
//
// Ids are 1-based positions in their table; 0 means "none". A frame's parent
// is the frame of its caller. (XLA's text writes a parent id plus one, so
// `parent_frame_id=1` is a frame without a caller; the parser and printer
// translate, and this class holds the real id.)
//
// Contract: a parsed index is consistent (every id it holds refers to an
// existing entry, and a frame's parent precedes it), so CallStack never
// loops. Passes keep the index and the metadata; clones copy both.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace hmo {

struct FileLocation {
  int64_t file_name_id = 0;
  int64_t function_name_id = 0;
  int64_t line = 0;
  int64_t end_line = 0;
  int64_t column = 0;
  int64_t end_column = 0;
  bool operator==(const FileLocation&) const = default;
};

struct StackFrame {
  int64_t file_location_id = 0;
  int64_t parent_frame_id = 0;  // 0: no caller.
  bool operator==(const StackFrame&) const = default;
};

// One resolved frame of a call stack.
struct SourceFrame {
  std::string_view file;
  std::string_view function;
  int64_t line = 0;
  int64_t column = 0;
  int64_t end_line = 0;
  int64_t end_column = 0;
};

class StackFrameIndex {
 public:
  bool empty() const {
    return file_names_.empty() && function_names_.empty() && file_locations_.empty() &&
           stack_frames_.empty();
  }

  const std::vector<std::string>& file_names() const { return file_names_; }
  const std::vector<std::string>& function_names() const { return function_names_; }
  const std::vector<FileLocation>& file_locations() const { return file_locations_; }
  const std::vector<StackFrame>& stack_frames() const { return stack_frames_; }

  // Appending returns the new entry's id. References are not checked here:
  // call Validate() once the tables are complete.
  int64_t AddFileName(std::string name);
  int64_t AddFunctionName(std::string name);
  int64_t AddFileLocation(const FileLocation& location);
  int64_t AddStackFrame(const StackFrame& frame);

  // Error naming the first entry whose reference is out of range, or a frame
  // whose parent does not precede it.
  absl::Status Validate() const;
  bool HasFrame(int64_t frame_id) const {
    return frame_id >= 1 && frame_id <= static_cast<int64_t>(stack_frames_.size());
  }

  // The call stack of `frame_id`, innermost frame first; empty for 0 or an
  // unknown id. Precondition: Validate() is ok.
  std::vector<SourceFrame> CallStack(int64_t frame_id) const;

  // The tables as XLA prints them: for each table its name line, one
  // `id value` line per entry and a blank line. Empty for an empty index.
  std::string ToString() const;

  bool operator==(const StackFrameIndex&) const = default;

 private:
  std::vector<std::string> file_names_;
  std::vector<std::string> function_names_;
  std::vector<FileLocation> file_locations_;
  std::vector<StackFrame> stack_frames_;
};

// The `stack_frame_id=N` inside a verbatim `metadata={...}` value, or 0.
int64_t StackFrameIdFromMetadata(std::string_view metadata);

}  // namespace hmo

#endif  // HMO_IR_STACK_FRAME_INDEX_H_
