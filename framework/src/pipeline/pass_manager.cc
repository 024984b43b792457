#include "hmo/pipeline/pass_manager.h"

#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/pass/pipeline_run_state.h"
#include "hmo/plugin/plugin_registries.h"
#include "spdlog/spdlog.h"

namespace hmo {

absl::StatusOr<PipelineRunSummary> PassManager::Run(HloModule& module) {
  PipelineRunSummary summary;
  for (PassInstrumentation* instrumentation : instrumentations_) {
    HMO_RETURN_IF_ERROR(instrumentation->BeforePipeline(module));
  }
  AnalysisManager analyses(module, &registries_.analyses);
  PipelineRunState run_state;
  bool changed = false;
  HMO_RETURN_IF_ERROR(RunSteps(pipeline_.steps, module, analyses, run_state, 0, changed, summary));
  summary.changed = changed;
  for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
    HMO_RETURN_IF_ERROR((*it)->AfterPipeline(module));
  }
  if (pipeline_.memory_limit.has_value()) {
    // The target's device figure (its executable's arenas), on the module as
    // the passes left it.
    HMO_ASSIGN_OR_RETURN(
        summary.memory_limit,
        CheckTargetMemoryLimit(module, *pipeline_.memory_limit, pipeline_.target_model));
    HMO_RETURN_IF_ERROR(MemoryLimitStatus(*summary.memory_limit));
  }
  return summary;
}

absl::Status PassManager::RunSteps(const std::vector<ResolvedStep>& steps, HloModule& module,
                                   AnalysisManager& analyses, PipelineRunState& run_state,
                                   int64_t iteration, bool& changed, PipelineRunSummary& summary) {
  for (const ResolvedStep& step : steps) {
    if (step.kind == ResolvedStep::Kind::kPass) {
      HMO_RETURN_IF_ERROR(RunPass(step, module, analyses, run_state, iteration, changed, summary));
      continue;
    }
    bool converged = false;
    for (int64_t i = 1; i <= step.max_iterations && !converged; ++i) {
      bool changed_this_iteration = false;
      HMO_RETURN_IF_ERROR(
          RunSteps(step.steps, module, analyses, run_state, i, changed_this_iteration, summary));
      changed = changed || changed_this_iteration;
      converged = !changed_this_iteration;
    }
    if (!converged) {
      ++summary.fixed_point_caps_reached;
      spdlog::warn("module '{}': a fixed-point group reached max-iterations={} while its passes "
                   "still changed the module",
                   module.name(), step.max_iterations);
    }
  }
  return absl::OkStatus();
}

absl::Status PassManager::RunPass(const ResolvedStep& step, HloModule& module,
                                  AnalysisManager& analyses, PipelineRunState& run_state,
                                  int64_t iteration, bool& changed, PipelineRunSummary& summary) {
  const PassRegistration& registration = step.pass->registration;
  if (static_cast<int64_t>(summary.runs.size()) >= pipeline_.max_pass_runs) {
    return absl::ResourceExhaustedError(fmt::format(
        "module '{}': the pipeline reached max-pass-runs={} before pass '{}' (its fixed-point "
        "groups keep reporting changes; raise 'max-pass-runs' or 'max-iterations' if the work "
        "is real)",
        module.name(), pipeline_.max_pass_runs, registration.name));
  }
  absl::StatusOr<std::unique_ptr<HloPass>> pass = registration.create(step.options);
  if (!pass.ok()) {
    return absl::Status(pass.status().code(),
                        fmt::format("cannot create pass '{}': {}", registration.name,
                                    std::string(pass.status().message())));
  }
  if (*pass == nullptr || (*pass)->name() != registration.name) {
    return absl::InternalError(fmt::format(
        "the factory of pass '{}' (plugin '{}') made {}", registration.name, step.pass->plugin,
        *pass == nullptr ? std::string("nothing")
                         : fmt::format("a pass named '{}'", (*pass)->name())));
  }
  PassRunInfo run;
  run.pass_name = registration.name;
  run.options = &step.options;
  run.sequence = static_cast<int64_t>(summary.runs.size()) + 1;
  run.iteration = iteration;
  for (PassInstrumentation* instrumentation : instrumentations_) {
    HMO_RETURN_IF_ERROR(instrumentation->BeforePass(run, module));
  }
  spdlog::debug("module '{}': running pass '{}' (#{})", module.name(), run.pass_name,
                run.sequence);
  PassContext context(analyses, registries_, &run_state);
  context.set_memory_limit(pipeline_.memory_limit);
  context.set_target_memory_model(&pipeline_.target_model);
  context.set_progress(progress_);
  absl::StatusOr<bool> pass_changed = (*pass)->Run(module, context);
  if (!pass_changed.ok()) {
    return absl::Status(pass_changed.status().code(),
                        fmt::format("pass '{}' failed on module '{}': {}", registration.name,
                                    module.name(), std::string(pass_changed.status().message())));
  }
  if (*pass_changed) {
    // Passes edit schedules in place; the module's order follows them.
    module.SyncInstructionOrderWithSchedule();
    analyses.Invalidate(context.preserved());
    changed = true;
  }
  summary.runs.push_back({registration.name, run.sequence, *pass_changed, context.report()});
  for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
    HMO_RETURN_IF_ERROR((*it)->AfterPass(run, module, *pass_changed));
  }
  return absl::OkStatus();
}

}  // namespace hmo
