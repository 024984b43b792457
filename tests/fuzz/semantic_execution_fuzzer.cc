// Fuzz target: verified modules (mutated structurally by
// semantic_mutator.cc) executed on the cpu and gpu-emulated backends, as
// written and after each backend's default pipeline, against the reference
// evaluator on the module as written. A backend may refuse a module; what
// it runs must compute the evaluator's values, unless those values are
// ill-conditioned (IllConditioned below): then no backend can be held to
// them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "fuzz_check.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
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

// A few units in the last place of `type`, as a fraction: what rounding in
// another order does to one intermediate value. 0: not a float type nudged.
double NudgeOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F64:
      return 0x1p-50;
    case PrimitiveType::F32:
      return 0x1p-21;
    case PrimitiveType::F16:
      return 0x1p-9;
    case PrimitiveType::BF16:
      return 0x1p-6;
    default:
      return 0;
  }
}

void Nudge(Literal& literal) {
  for (Literal& element : *literal.mutable_tuple_elements()) Nudge(element);
  const double nudge = NudgeOf(literal.element_type());
  if (nudge == 0 || literal.shape().IsTuple()) return;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.SetFromDouble(i, literal.GetAsDouble(i) * (1 + nudge));
  }
}

// Whether rounding alone moves the result of `reference` beyond what the
// comparison tolerates: the evaluator's values for the fuzz arguments and
// for the same arguments moved by a few ULPs differ. A backend that sums in
// another order (vectorized reductions, blocked dots) may then differ as
// much; such a program (e.g. a loop feeding sin of a growing sum back into
// a division) has no value to hold a backend to, so it is not a finding.
bool IllConditioned(const HloModule& reference) {
  if (ExecutionDeviceCount(reference, 1) != 1) return false;
  absl::StatusOr<std::vector<Literal>> arguments = MakeModuleArguments(reference, {}, /*seed=*/1);
  if (!arguments.ok()) return false;
  HloEvaluator::Options evaluator_options;
  evaluator_options.max_loop_iterations = kMaxLoopTrips;
  HloEvaluator evaluator(evaluator_options);
  absl::StatusOr<Literal> expected = evaluator.Evaluate(reference, *arguments);
  for (Literal& argument : *arguments) Nudge(argument);
  absl::StatusOr<Literal> nudged = evaluator.Evaluate(reference, *arguments);
  return expected.ok() && nudged.ok() && !CompareLiterals(*expected, *nudged).ok();
}

void ExpectEvaluatorValues(const Backend& backend, const HloModule& module,
                           const HloModule& reference, std::string_view what) {
  ModuleExecutionOptions options;
  options.seed = 1;
  options.reference = &reference;
  options.max_loop_trips = kMaxLoopTrips;
  ModuleExecutionReport report;
  const absl::Status status = ExecuteModule(backend, module, options, &report);
  if (!status.ok() && report.comparison.has_value() && IllConditioned(reference)) return;
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
