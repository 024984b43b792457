#ifndef HMO_PIPELINE_PASS_MANAGER_H_
#define HMO_PIPELINE_PASS_MANAGER_H_

// Runs a resolved pipeline on one module.
//
// Every run creates fresh pass objects from their registrations, and its own
// AnalysisManager, so one ResolvedPipeline can run on many modules at once
// (one PassManager per module, or one per thread).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/analysis/memory_limit.h"
#include "hmo/pipeline/pass_instrumentation.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "hmo/pass/pass_context.h"

namespace hmo {

class HloModule;

// What one pass run did.
struct PassRunRecord {
  std::string pass;
  int64_t sequence = 0;
  bool changed = false;
  // What the pass reported through PassContext::Report (empty if nothing).
  std::string report;
};

// What a module run did.
struct PipelineRunSummary {
  std::vector<PassRunRecord> runs;
  // Whether any pass changed the module.
  bool changed = false;
  // How many fixed-point groups stopped at max-iterations while a pass still
  // reported a change.
  int64_t fixed_point_caps_reached = 0;
  // With a pipeline memory limit: the check of the module the pipeline left
  // (hmo/analysis/memory_limit.h); Run fails when it does not fit.
  std::optional<MemoryLimitCheck> memory_limit;
};

class PassManager {
 public:
  // `pipeline` and `registries` must outlive the manager.
  PassManager(const ResolvedPipeline& pipeline, const PluginRegistries& registries)
      : pipeline_(pipeline), registries_(registries) {}

  // Adds an instrumentation (not owned; must outlive Run()).
  void AddInstrumentation(PassInstrumentation* instrumentation) {
    instrumentations_.push_back(instrumentation);
  }

  // Where the passes report their progress (not owned; must outlive Run());
  // null (the default): nowhere.
  void set_progress(ProgressSink* progress) { progress_ = progress; }

  // Runs the pipeline on `module`. A fixed-point group repeats its steps until
  // an iteration in which none reports a change, or `max_iterations` times
  // (then it logs a warning and the pipeline goes on). Returns what ran, or
  // the first error: more pass runs than the pipeline's max_pass_runs
  // (ResourceExhausted), a pass that cannot be created (or whose factory makes a
  // pass with another name), a pass that fails ("pass 'x' failed on module
  // 'm': ..."), or a hook's error. After an error the module may be
  // partly transformed.
  absl::StatusOr<PipelineRunSummary> Run(HloModule& module);

 private:
  // Runs `steps` once; sets `changed` when any pass changed the module.
  absl::Status RunSteps(const std::vector<ResolvedStep>& steps, HloModule& module,
                        class AnalysisManager& analyses, class PipelineRunState& run_state,
                        int64_t iteration, bool& changed, PipelineRunSummary& summary);
  absl::Status RunPass(const ResolvedStep& step, HloModule& module, AnalysisManager& analyses,
                       PipelineRunState& run_state, int64_t iteration, bool& changed,
                       PipelineRunSummary& summary);

  const ResolvedPipeline& pipeline_;
  const PluginRegistries& registries_;
  std::vector<PassInstrumentation*> instrumentations_;
  ProgressSink* progress_ = nullptr;
};

}  // namespace hmo

#endif  // HMO_PIPELINE_PASS_MANAGER_H_
