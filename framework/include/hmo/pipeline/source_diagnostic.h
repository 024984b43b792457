#ifndef HMO_PIPELINE_SOURCE_DIAGNOSTIC_H_
#define HMO_PIPELINE_SOURCE_DIAGNOSTIC_H_

// Errors that point into user input (a pipeline file, a --passes string):
//
//   pipelines/x.yaml:7:9: error: unknown pass 'memory-schedular' (did you mean ...?)
//     - pass: memory-schedular
//             ^

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace hmo {

// A 1-based line and column; 0 means unknown.
struct SourcePosition {
  int line = 0;
  int column = 0;
};

// A named input text, kept for quoting lines in errors.
struct SourceText {
  std::string filename;  // as the user gave it, or "<--passes>"
  std::string text;
};

// Returns "file:line:col: error: message", then the source line and a caret
// under the column (tabs in the line are kept so the caret lines up). With an
// unknown position only "file: error: message".
std::string FormatSourceError(const SourceText& source, SourcePosition position,
                              std::string_view message);

// Returns InvalidArgument carrying FormatSourceError(...).
absl::Status SourceError(const SourceText& source, SourcePosition position,
                         std::string_view message);

}  // namespace hmo

#endif  // HMO_PIPELINE_SOURCE_DIAGNOSTIC_H_
