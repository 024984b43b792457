#ifndef HMO_PIPELINE_PIPELINE_YAML_PARSER_H_
#define HMO_PIPELINE_PIPELINE_YAML_PARSER_H_

// Reads a YAML pipeline file (pipelines/*.yaml):
//
//   version: 1                 # required; the schema version (1)
//   plugins: [scheduler]       # optional; plugins to load besides the search path's
//   verify: changed            # optional; never | changed (default) | always
//   dump:                      # optional
//     to: /tmp/hmo-dumps       #   directory for dumps
//     after: "memory-.*"       #   regex of pass names to dump after (default: all)
//   passes:                    # required; run in order
//     - simplify-tuples        # a pass without options
//     - pass: memory-scheduler # a pass with options
//       options:
//         strategy: list
//         candidates: [list, dfs]
//     - fixed-point:           # repeat until no nested pass changes the module
//         max-iterations: 4    #   optional cap (default 25)
//         passes:
//           - pass-b
//
// Structure is checked here: unknown keys, wrong node kinds, bad scalars.
// Pass names and options are checked by ResolvePipeline against the loaded
// plugins. Every error is "file:line:col: error: ..." with the line and a caret.

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pipeline/pipeline_spec.h"

namespace hmo {

// Parses `text`; `filename` is used in error messages.
absl::StatusOr<PipelineSpec> ParsePipelineYaml(std::string_view text, std::string_view filename);

// Reads and parses the file at `path`. Returns NotFound when it cannot be read.
absl::StatusOr<PipelineSpec> ParsePipelineYamlFile(const std::filesystem::path& path);

}  // namespace hmo

#endif  // HMO_PIPELINE_PIPELINE_YAML_PARSER_H_
