// Fuzz target: verified modules (mutated structurally by
// semantic_mutator.cc) executed on the cpu and gpu-emulated backends, as
// written and after each backend's default pipeline, against the reference
// evaluator on the module as written. A backend may refuse a module; what
// it runs must compute the evaluator's values.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "fuzz_check.h"
#include "hmo/execution/module_execution.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pipeline/pass_manager.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "semantic_fuzz_environment.h"

namespace hmo::fuzz {
namespace {

// Far above the seeds' loops (tens of trips), so a mutated bound still runs,
// and small enough that a loop which never ends is stopped in well under a
// second by the backends and the evaluator alike.
constexpr int64_t kMaxLoopTrips = 10'000;

// Each executing backend with the pipeline that prepares modules for it.
struct BackendUnderTest {
  const Backend* backend = nullptr;
  ResolvedPipeline pipeline;
};

const std::vector<BackendUnderTest>& BackendsUnderTest() {
  static const std::vector<BackendUnderTest>* backends = [] {
    auto* all = new std::vector<BackendUnderTest>();
    const PluginHost& host = SemanticFuzzPlugins();
    for (const auto& [name, pipeline_file] :
         {std::pair{"cpu", "cpu-default.yaml"}, std::pair{"gpu-emulated", "device-default.yaml"}}) {
      const RegisteredBackend* backend = host.registries().backends.Find(name);
      if (backend == nullptr || !backend->registration.backend->CanExecute()) continue;
      ResolvedPipeline pipeline =
          ShippedPipeline(std::string(HMO_FUZZ_SOURCE_DIR) + "/pipelines/" + pipeline_file, name);
      all->push_back({backend->registration.backend.get(), std::move(pipeline)});
    }
    FuzzCheck(!all->empty(), "no executing backend loaded");
    return all;
  }();
  return *backends;
}

void ExpectEvaluatorValues(const Backend& backend, const HloModule& module,
                           const HloModule& reference, std::string_view what) {
  ModuleExecutionOptions options;
  options.seed = 1;
  options.reference = &reference;
  options.max_loop_trips = kMaxLoopTrips;
  ModuleExecutionReport report;
  const absl::Status status = ExecuteModule(backend, module, options, &report);
  FuzzCheck(status.ok() || !report.comparison.has_value(),
            std::string(backend.name()) + " (" + std::string(what) +
                ") computes other values than the evaluator: " + std::string(status.message()));
}

}  // namespace
}  // namespace hmo::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hmo;
  using namespace hmo::fuzz;
  const PluginHost& host = SemanticFuzzPlugins();
  for (const auto& module : VerifiedSmallModules(data, size, 4096)) {
    for (const BackendUnderTest& under_test : BackendsUnderTest()) {
      ExpectEvaluatorValues(*under_test.backend, *module, *module, "as written");
      std::unique_ptr<HloModule> prepared = module->Clone();
      PassManager manager(under_test.pipeline, host.registries());
      if (manager.Run(*prepared).ok()) {
        ExpectEvaluatorValues(*under_test.backend, *prepared, *module, "after its pipeline");
      }
    }
  }
  return 0;
}
