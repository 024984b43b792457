#ifndef HMO_PIPELINE_PIPELINE_TEXT_PARSER_H_
#define HMO_PIPELINE_PIPELINE_TEXT_PARSER_H_

// Reads the one-line pipeline form given with `hmo run --passes=...`:
//
//   pipeline    := step (',' step)*
//   step        := pass | fixed-point
//   pass        := NAME ('{' option (',' option)* '}')?
//   option      := KEY '=' value
//   value       := WORD | '[' (WORD (',' WORD)*)? ']'
//   fixed-point := 'fixed-point' ('(' 'max-iterations' '=' INT ')')? '{' pipeline '}'
//
// e.g. `memory-scheduler{strategy=list},fixed-point(max-iterations=4){a,b{k=[x,y]}}`.
// A WORD is any run of characters other than , { } [ ] ( ) = and spaces (a
// value or list element may contain '=': `opts=[seed=1]`), or a single- or
// double-quoted string. Spaces between tokens are ignored.
// Verification and dumping are set by command-line flags instead.

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pipeline/pipeline_spec.h"

namespace hmo {

// Parses `text`; errors are reported against a source named `source_name`
// (line 1, the column of the problem).
absl::StatusOr<PipelineSpec> ParsePipelineText(std::string_view text,
                                               std::string_view source_name = "<--passes>");

}  // namespace hmo

#endif  // HMO_PIPELINE_PIPELINE_TEXT_PARSER_H_
