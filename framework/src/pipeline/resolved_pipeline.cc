#include "hmo/pipeline/resolved_pipeline.h"

#include <regex>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/spelling_suggestion.h"

namespace hmo {
namespace {

absl::StatusOr<ResolvedStep> ResolveStep(const PipelineStepSpec& spec, const SourceText& source,
                                         const PassRegistry& passes) {
  ResolvedStep step;
  if (spec.kind == PipelineStepSpec::Kind::kFixedPoint) {
    step.kind = ResolvedStep::Kind::kFixedPoint;
    step.max_iterations = spec.max_iterations;
    for (const PipelineStepSpec& nested : spec.steps) {
      HMO_ASSIGN_OR_RETURN(ResolvedStep resolved, ResolveStep(nested, source, passes));
      step.steps.push_back(std::move(resolved));
    }
    return step;
  }
  step.pass = passes.Find(spec.pass_name);
  if (step.pass == nullptr) {
    const std::vector<std::string> names = passes.Names();
    std::string hint = DidYouMean(spec.pass_name, names);
    if (names.empty()) {
      hint = "; no passes are loaded (check --plugin-dir, HMO_PLUGIN_PATH and 'plugins:')";
    }
    return SourceError(source, spec.position,
                       fmt::format("unknown pass '{}'{}", spec.pass_name, hint));
  }
  std::vector<PassOptionAssignment> assignments;
  for (const PipelineOptionSpec& option : spec.options) assignments.push_back(option.assignment);
  PassOptionProblem problem;
  absl::StatusOr<PassOptions> options =
      step.pass->registration.options.Bind(assignments, &problem);
  if (!options.ok()) {
    SourcePosition position = spec.position;
    if (problem.part == PassOptionProblem::Part::kKey) {
      position = spec.options[problem.assignment].key_position;
    } else if (problem.part == PassOptionProblem::Part::kValue) {
      position = spec.options[problem.assignment].value_position;
    }
    return SourceError(source, position,
                       fmt::format("pass '{}': {}", spec.pass_name,
                                   std::string(options.status().message())));
  }
  step.options = *std::move(options);
  // A pass refuses values its schema cannot express (alignment: 0) when it
  // is created: create it once now, so the error points into the pipeline
  // (at the option it names, else at the pass) rather than at a module.
  absl::StatusOr<std::unique_ptr<HloPass>> created = step.pass->registration.create(step.options);
  if (!created.ok()) {
    const std::string message(created.status().message());
    SourcePosition position = spec.position;
    for (const PipelineOptionSpec& option : spec.options) {
      if (message.find(fmt::format("'{}'", option.assignment.key)) != std::string::npos) {
        position = option.value_position;
        break;
      }
    }
    return SourceError(source, position, fmt::format("pass '{}': {}", spec.pass_name, message));
  }
  return step;
}

}  // namespace

absl::StatusOr<ResolvedPipeline> ResolvePipeline(const PipelineSpec& spec,
                                                 const PassRegistry& passes) {
  ResolvedPipeline pipeline;
  for (const PluginReferenceSpec& plugin : spec.plugins) pipeline.plugins.push_back(plugin.reference);
  for (const PipelineStepSpec& step_spec : spec.steps) {
    HMO_ASSIGN_OR_RETURN(ResolvedStep step, ResolveStep(step_spec, spec.source, passes));
    pipeline.steps.push_back(std::move(step));
  }
  pipeline.verify = spec.verify;
  pipeline.dump = spec.dump;
  pipeline.memory_limit = spec.memory_limit;
  pipeline.target = spec.target;
  pipeline.max_pass_runs = spec.max_pass_runs;
  try {
    std::regex check(spec.dump.after);
  } catch (const std::regex_error& e) {
    return SourceError(spec.source, spec.dump_after_position,
                       fmt::format("'dump.after' is not a valid regex: {}", e.what()));
  }
  return pipeline;
}

int64_t CountPassSteps(const std::vector<ResolvedStep>& steps) {
  int64_t count = 0;
  for (const ResolvedStep& step : steps) {
    count += step.kind == ResolvedStep::Kind::kPass ? 1 : CountPassSteps(step.steps);
  }
  return count;
}

}  // namespace hmo
