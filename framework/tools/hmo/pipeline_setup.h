#ifndef HMO_TOOLS_HMO_PIPELINE_SETUP_H_
#define HMO_TOOLS_HMO_PIPELINE_SETUP_H_

// Turns `hmo run`'s pipeline arguments into a resolved pipeline: reads the
// YAML file or the --passes string, loads the plugins it names, checks it
// against the loaded passes, and applies the command-line overrides.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/plugin/plugin_search_path.h"

namespace hmo::cli {

struct PipelineArguments {
  std::string yaml_file;     // a pipeline file, or
  std::string passes_text;   // a one-line pipeline (--passes)
  std::string verify;        // --verify: never|changed|always, or empty
  std::string dump_to;       // --dump-to, or empty
  std::string dump_after;    // --dump-after, or empty
  std::string memory_limit;  // --memory-limit SIZE, or empty
  std::string target;        // --target BACKEND (overrides the pipeline's `target:`), or empty
  // The target when neither names one: the backend that will run the
  // modules, else the host's CPU ("cpu"; the model of no target when no
  // such backend is loaded).
  std::string default_target = "cpu";
};

// Returns the resolved pipeline. `host` must already hold the search path's
// plugins; the pipeline's own `plugins:` are loaded into it (relative paths
// are relative to the pipeline file). The pipeline's target is looked up
// among the loaded backends and its memory model set (an unknown target named
// by the user is an error listing the loaded backends). Errors are ready to print: positioned
// ones as "file:line:col: error: ..." with the source line and a caret.
absl::StatusOr<ResolvedPipeline> SetUpPipeline(const PipelineArguments& arguments,
                                               PluginHost& host,
                                               const PluginSearchPath& search_path);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_PIPELINE_SETUP_H_
