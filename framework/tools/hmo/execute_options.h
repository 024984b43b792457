#ifndef HMO_TOOLS_HMO_EXECUTE_OPTIONS_H_
#define HMO_TOOLS_HMO_EXECUTE_OPTIONS_H_

// `hmo run`'s execution options (--execute, --check, --backend, --inputs,
// --seed, --results-dir, --opt-level, --rtol, --atol, --replicas, --repeat, --threads,
// --kernels-in-order, --max-loop-trips): declared on
// the argument parser, then checked against the loaded backends.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "argument_parser.h"
#include "hmo/base/loop_trip_budget.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/plugin/backend.h"
#include "hmo/plugin/plugin_registries.h"

namespace hmo::cli {

// The options as written on the command line.
struct ExecuteArguments {
  bool execute = false;
  bool check = false;
  std::string backend = "cpu";
  std::string inputs;  // comma-separated .npy files
  std::string seed;
  std::string results_dir;
  std::string opt_level;
  std::string rtol;
  std::string atol;
  std::string replicas;
  std::string repeat;
  std::string threads;
  bool kernels_in_order = false;
  std::string max_loop_trips;

  void AddTo(ArgumentParser& parser);
  // Whether any execution was asked for (--execute or --check).
  bool enabled() const { return execute || check; }
  // The first execution option given (its name), when execution was not
  // asked for: such an option would be ignored. Empty otherwise.
  std::string IgnoredOption() const;
};

// The options checked and resolved; only built when enabled().
struct ExecuteSettings {
  std::shared_ptr<const Backend> backend;
  bool check = false;
  std::vector<std::string> input_files;  // empty: random arguments from the seed
  uint64_t seed = 0;
  std::string results_dir;  // empty: results are not written
  int64_t repeat = 1;       // Execute calls: one cold, the rest warm
  // Each while loop's trip budget in the executable and the evaluator; -1: none.
  int64_t max_loop_trips = kDefaultMaxLoopTrips;
  CompileOptions compile;
  LiteralComparisonOptions comparison;
  // The pipeline's memory limit and target (set after the pipeline is set up).
  std::optional<int64_t> memory_limit;
  std::string pipeline_target;
};

// Resolves `arguments` against the loaded backends. InvalidArgument for a
// malformed number, and for a backend that is unknown or cannot execute,
// listing the executing backends (and the plugins they come from).
absl::StatusOr<ExecuteSettings> ResolveExecuteArguments(const ExecuteArguments& arguments,
                                                        const PluginRegistries& registries);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_EXECUTE_OPTIONS_H_
