// Fuzz target: verified modules (mutated structurally by
// semantic_mutator.cc) through every shipped pipeline, with the build's
// plugins. A pass may refuse a module with an error; it must never crash,
// leave a module the verifier refuses, or misreport whether it changed the
// module.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pipeline/changed_check.h"
#include "hmo/pipeline/pass_manager.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "hmo/verifier/hlo_verifier.h"
#include "semantic_fuzz_environment.h"

namespace hmo::fuzz {
namespace {

// Checks each pass run: its `changed` answer against the module text, and
// a changed module against the verifier.
class PassPropertyCheck : public PassInstrumentation {
 public:
  absl::Status BeforePass(const PassRunInfo&, const HloModule& module) override {
    hash_before_ = HashModuleText(module);
    return absl::OkStatus();
  }
  absl::Status AfterPass(const PassRunInfo& run, const HloModule& module, bool changed) override {
    const bool text_changed = HashModuleText(module) != hash_before_;
    FuzzCheck(text_changed == changed,
              "pass " + std::string(run.pass_name) + " misreported whether it changed the module");
    if (text_changed) {
      const std::vector<HloVerifierError> errors = CollectVerifierErrors(module, {});
      FuzzCheck(errors.empty(), "pass " + std::string(run.pass_name) +
                                    " left a module the verifier refuses: " +
                                    (errors.empty() ? "" : errors[0].ToString()));
    }
    return absl::OkStatus();
  }

 private:
  size_t hash_before_ = 0;
};

struct PipelineUnderTest {
  std::string name;
  ResolvedPipeline pipeline;
  bool needs_limit = false;
};

const std::vector<PipelineUnderTest>& PipelinesUnderTest() {
  static const std::vector<PipelineUnderTest>* pipelines = [] {
    auto* all = new std::vector<PipelineUnderTest>();
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(HMO_FUZZ_SOURCE_DIR) + "/pipelines")) {
      if (entry.path().extension() != ".yaml") continue;
      PipelineUnderTest shipped{entry.path().stem().string(), ShippedPipeline(entry.path(), "cpu")};
      shipped.needs_limit = shipped.name == "fit" || shipped.name == "rematerialization";
      all->push_back(std::move(shipped));
    }
    FuzzCheck(!all->empty(), "no shipped pipelines found");
    return all;
  }();
  return *pipelines;
}

}  // namespace
}  // namespace hmo::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hmo;
  using namespace hmo::fuzz;
  const PluginHost& host = SemanticFuzzPlugins();
  for (const auto& module : VerifiedSmallModules(data, size, int64_t{1} << 16)) {
    for (const PipelineUnderTest& shipped : PipelinesUnderTest()) {
      ResolvedPipeline pipeline = shipped.pipeline;
      if (shipped.needs_limit) {
        // Three quarters of what the module needs as written: fit and
        // rematerialization have work to do.
        auto figure = CheckTargetMemoryLimit(*module, 0, pipeline.target_model);
        if (!figure.ok()) continue;
        pipeline.memory_limit = figure->device_bytes * 3 / 4;
      }
      std::unique_ptr<HloModule> copy = module->Clone();
      PassManager manager(pipeline, host.registries());
      PassPropertyCheck check;
      manager.AddInstrumentation(&check);
      (void)manager.Run(*copy);
    }
  }
  return 0;
}
