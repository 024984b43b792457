#include "semantic_fuzz_environment.h"

#include <cstdio>
#include <cstdlib>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/shape.h"
#include "fuzz_check.h"
#include "hmo/builtin_passes/framework_passes.h"
#include "hmo/pipeline/pipeline_yaml_parser.h"
#include "hmo/plugin/plugin_search_path.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "spdlog/spdlog.h"

namespace hmo::fuzz {
namespace {

int64_t LargestElementCount(const Shape& shape) {
  if (shape.IsArray()) return ShapeUtil::ElementsIn(shape);
  int64_t largest = 0;
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      largest = std::max(largest, LargestElementCount(element));
    }
  }
  return largest;
}

}  // namespace

const PluginHost& SemanticFuzzPlugins() {
  static const PluginHost* host = [] {
    // Passes log what they chose at info level; thousands of runs a minute
    // would only bury a finding's message.
    spdlog::set_level(spdlog::level::err);
    auto* loaded = new PluginHost();
    if (const absl::Status builtin = RegisterFrameworkPasses(loaded->mutable_registries().passes);
        !builtin.ok()) {
      std::fprintf(stderr, "semantic fuzz target: %s\n", std::string(builtin.message()).c_str());
      std::abort();
    }
    const std::vector<absl::Status> errors =
        loaded->LoadAllPlugins(PluginSearchPath::Build({HMO_FUZZ_PLUGIN_DIR}, nullptr));
    if (!errors.empty() || loaded->plugins().empty()) {
      std::fprintf(stderr, "semantic fuzz target: cannot load the plugins in %s: %s\n",
                   HMO_FUZZ_PLUGIN_DIR,
                   errors.empty() ? "none found" : std::string(errors[0].message()).c_str());
      std::abort();
    }
    return loaded;
  }();
  return *host;
}

ResolvedPipeline ShippedPipeline(const std::filesystem::path& file, std::string_view target) {
  const PluginHost& host = SemanticFuzzPlugins();
  auto spec = ParsePipelineYamlFile(file);
  FuzzCheck(spec.ok(), "a shipped pipeline does not parse: " + file.string());
  auto pipeline = ResolvePipeline(*spec, host.registries().passes);
  FuzzCheck(pipeline.ok(), "a shipped pipeline does not resolve: " + file.string() + ": " +
                               std::string(pipeline.status().message()));
  if (const RegisteredBackend* backend = host.registries().backends.Find(target)) {
    pipeline->target_model = backend->registration.backend->MemoryModel();
  }
  return *std::move(pipeline);
}

std::vector<std::unique_ptr<HloModule>> VerifiedSmallModules(const uint8_t* data, size_t size,
                                                             int64_t max_elements) {
  std::vector<std::unique_ptr<HloModule>> kept;
  if (size > 64 * 1024) return kept;
  auto modules =
      ParseHloModules(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.hlo");
  if (!modules.ok()) return kept;
  for (auto& module : *modules) {
    if (!CollectVerifierErrors(*module, {}).empty()) continue;
    bool small = true;
    for (const HloComputation* computation : module->computations()) {
      for (const HloInstruction* instruction : computation->instructions()) {
        small = small && LargestElementCount(instruction->shape()) <= max_elements;
      }
    }
    if (small) kept.push_back(std::move(module));
  }
  return kept;
}

}  // namespace hmo::fuzz
