#ifndef HMO_TOOLS_HMO_EXECUTION_SUMMARY_H_
#define HMO_TOOLS_HMO_EXECUTION_SUMMARY_H_

// `hmo run --execute / --check` for one module, after the pipeline, and the
// lines the tool prints of it. hmo::ExecuteModule (hmo/execution/
// module_execution.h) does the work: build the arguments (from --inputs or the
// seed), compile with the backend, run while measuring, write the results, and
// with --check compare against the reference evaluator run on the unoptimized
// module; this adds the reference module, the timeline file and the summary.

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "execute_options.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::cli {

struct ExecutionSummary {
  // The summary lines (each indented by two spaces, ending in '\n'); as much
  // as was done when `status` is an error (e.g. a failed check still shows
  // the results).
  std::string summary;
  absl::Status status;
};

// Executes `module` (the pipeline's result for the file `input`; its elided
// constants already filled from settings.seed) as `settings` say. With
// --check, `input` is parsed again and its elided constants filled with the
// same seed for the reference run. `results_dir` empty: no result files.
ExecutionSummary ExecuteAndSummarize(const ExecuteSettings& settings, const HloModule& module,
                                     const std::filesystem::path& input,
                                     const std::filesystem::path& results_dir);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_EXECUTION_SUMMARY_H_
