#include "pipeline_setup.h"

#include <regex>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "hmo/plugin/plugin_registries.h"
#include "hmo/analysis/byte_size.h"
#include "hmo/base/status_macros.h"
#include "hmo/pipeline/pipeline_text_parser.h"
#include "hmo/pipeline/pipeline_yaml_parser.h"

namespace hmo::cli {

absl::StatusOr<ResolvedPipeline> SetUpPipeline(const PipelineArguments& arguments,
                                               PluginHost& host,
                                               const PluginSearchPath& search_path) {
  const bool from_file = arguments.passes_text.empty();
  HMO_ASSIGN_OR_RETURN(PipelineSpec spec, from_file
                                              ? ParsePipelineYamlFile(arguments.yaml_file)
                                              : ParsePipelineText(arguments.passes_text));
  const std::filesystem::path base =
      from_file ? std::filesystem::path(arguments.yaml_file).parent_path()
                : std::filesystem::current_path();
  for (const PluginReferenceSpec& plugin : spec.plugins) {
    absl::Status loaded = host.LoadPluginReference(plugin.reference, search_path, base);
    if (!loaded.ok()) return SourceError(spec.source, plugin.position, std::string(loaded.message()));
  }
  HMO_ASSIGN_OR_RETURN(ResolvedPipeline pipeline, ResolvePipeline(spec, host.registries().passes));

  if (!arguments.verify.empty()) {
    if (arguments.verify == "never") {
      pipeline.verify = VerifyMode::kNever;
    } else if (arguments.verify == "changed") {
      pipeline.verify = VerifyMode::kChanged;
    } else if (arguments.verify == "always") {
      pipeline.verify = VerifyMode::kAlways;
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "--verify is never, changed or always, got '{}'", arguments.verify));
    }
  }
  if (!arguments.dump_to.empty()) pipeline.dump.directory = arguments.dump_to;
  if (!arguments.dump_after.empty()) {
    try {
      std::regex check(arguments.dump_after);
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(
          fmt::format("--dump-after '{}' is not a valid regex: {}", arguments.dump_after, e.what()));
    }
    pipeline.dump.after = arguments.dump_after;
  }
  if (!arguments.memory_limit.empty()) {
    absl::StatusOr<int64_t> bytes = ParseByteSize(arguments.memory_limit);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("--memory-limit: {}", std::string(bytes.status().message())));
    }
    pipeline.memory_limit = *bytes;
  }

  // The target: --target, else the pipeline's `target:`, else the default.
  const bool named = !arguments.target.empty() || !spec.target.empty();
  const std::string target = !arguments.target.empty() ? arguments.target
                             : !spec.target.empty()    ? spec.target
                                                       : arguments.default_target;
  if (const RegisteredBackend* backend = host.registries().backends.Find(target)) {
    pipeline.target = target;
    pipeline.target_model = backend->registration.backend->MemoryModel();
    if (pipeline.target_model.target != target) {
      return absl::InternalError(
          fmt::format("backend '{}' (plugin {}) describes its memory model as target '{}'", target,
                      backend->plugin, pipeline.target_model.target));
    }
  } else if (named) {
    const std::string message =
        fmt::format("target '{}': no backend of that name is loaded (loaded: {})", target,
                    host.registries().backends.Names().empty()
                        ? std::string("none")
                        : fmt::format("{}", fmt::join(host.registries().backends.Names(), ", ")));
    if (!arguments.target.empty()) return absl::InvalidArgumentError("--target " + message);
    return SourceError(spec.source, spec.target_position, message);
  }
  return pipeline;
}

}  // namespace hmo::cli
