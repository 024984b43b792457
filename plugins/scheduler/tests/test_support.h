#ifndef HMO_PLUGINS_SCHEDULER_TESTS_TEST_SUPPORT_H_
#define HMO_PLUGINS_SCHEDULER_TESTS_TEST_SUPPORT_H_

// Helpers for the scheduler tests: modules from HLO text with the analyses a
// scheduler needs, orders as instruction names, module peaks, random graphs
// and brute force over every order.

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/memory_model.h"
#include "core/module_views.h"
#include "core/scheduling_graph.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo::scheduler::testing {

// A parsed module, its alias analysis, and the scheduling inputs built from
// it.
class AnalyzedModule {
 public:
  static absl::StatusOr<std::unique_ptr<AnalyzedModule>> Parse(std::string_view text);

  HloModule& module() const { return *module_; }
  const HloAliasAnalysis& alias_analysis() const { return *alias_analysis_; }
  const SchedulingInputs& inputs() const { return inputs_; }
  // The computation called `name`; the entry when `name` is empty.
  const HloComputation& computation(std::string_view name = "") const;
  // The graph of computation `name` (the entry when empty).
  SchedulingGraph Graph(std::string_view name = "") const;

  // Schedules every non-fusion computation with `order_fn` (given each
  // computation's graph; returns instruction ids).
  HloSchedule Schedule(
      const std::function<std::vector<int>(const SchedulingGraph&)>& order_fn) const;
  // The heap simulator's module peak of `schedule`.
  int64_t Peak(const HloSchedule& schedule) const;

 private:
  std::unique_ptr<HloModule> module_;
  std::unique_ptr<HloAliasAnalysis> alias_analysis_;
  SchedulingInputs inputs_;
};

// The names of `order`'s instructions, space-separated.
std::string Names(const SchedulingGraph& graph, const std::vector<int>& order);
// The instruction names of computation `name`'s sequence in `schedule`.
std::string Names(const HloSchedule& schedule, const HloComputation& computation);

// A random DAG of `n` instructions, one value each (sizes 0..64 bytes in
// steps of 8, a few parameters (some donated) and constants, random
// may-share operands,
// the last instruction the live-out root, some extra live-out values, and
// some instructions reading values of their operands' operands, as
// get-tuple-element reads through a tuple).
SchedulingGraph RandomGraph(std::mt19937& rng, int n);
// A uniformly random valid order of `graph`.
std::vector<int> RandomOrder(const SchedulingGraph& graph, std::mt19937& rng);
// The lowest MemoryModel peak over every valid order (small graphs only).
int64_t BruteForcePeak(const MemoryModel& model);

}  // namespace hmo::scheduler::testing

#endif  // HMO_PLUGINS_SCHEDULER_TESTS_TEST_SUPPORT_H_
