#ifndef HMO_PIPELINE_RESOLVED_PIPELINE_H_
#define HMO_PIPELINE_RESOLVED_PIPELINE_H_

// A pipeline checked against the loaded passes: every pass name is known and
// every pass's options are typed and complete. Immutable once built, so the
// runs of many modules in parallel share one.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/pass/pass_options.h"
#include "hmo/pass/pass_registry.h"
#include "hmo/pipeline/pipeline_spec.h"

namespace hmo {

struct ResolvedStep {
  enum class Kind { kPass, kFixedPoint };
  Kind kind = Kind::kPass;

  // kPass: the registered pass (owned by the PassRegistry, which must outlive
  // this pipeline) and its complete options.
  const RegisteredPass* pass = nullptr;
  PassOptions options;

  // kFixedPoint
  int64_t max_iterations = 0;
  std::vector<ResolvedStep> steps;
};

struct ResolvedPipeline {
  std::vector<std::string> plugins;  // the plugin references, as written
  std::vector<ResolvedStep> steps;
  VerifyMode verify = VerifyMode::kChanged;
  DumpSettings dump;
  std::optional<int64_t> memory_limit;  // bytes; none when not set
  // The backend the pipeline targets, as written (`target:`; empty: chosen
  // by the tool), and its memory model once the tool has looked the backend
  // up (Backend::MemoryModel). Without a model (`target_model.target`
  // empty) every measure is the model of no target.
  std::string target;
  TargetMemoryModel target_model;
  // At most this many pass runs per module run (`max-pass-runs:`).
  int64_t max_pass_runs = kDefaultMaxPassRuns;
};

// Checks `spec` against `passes`. Errors point into the spec's source:
// an unknown pass name (with "did you mean" and, when no passes are loaded at
// all, a hint about the plugin search path), an unknown, repeated or
// mistyped option, a missing required option, or an invalid dump regex.
absl::StatusOr<ResolvedPipeline> ResolvePipeline(const PipelineSpec& spec,
                                                 const PassRegistry& passes);

// Returns the number of pass steps, counting each pass inside a fixed-point
// group once.
int64_t CountPassSteps(const std::vector<ResolvedStep>& steps);

}  // namespace hmo

#endif  // HMO_PIPELINE_RESOLVED_PIPELINE_H_
