#ifndef HMO_EXECUTION_MODULE_EXECUTION_H_
#define HMO_EXECUTION_MODULE_EXECUTION_H_

// Running one module on a backend the way `hmo run --execute / --check` does,
// as a library function so that tools and tests share it: build the
// arguments (from .npy files, or random from a seed), compile, run while
// measuring time and peak resident memory, write the result leaves as .npy,
// and optionally compare with the reference evaluator's result on the
// unoptimized module.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/plugin/executable.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/literal.h"
#include "hmo/plugin/backend.h"

namespace hmo {

// The arguments for `module`'s entry parameters: ReadNpyFileAs(files[i],
// parameter i's shape) when `files` is not empty (a count that differs from
// the number of parameters is InvalidArgument naming the files and the
// module; a file that does not fit its parameter is an error naming the file
// and the parameter), else MakeRandomArguments(module, seed).
absl::StatusOr<std::vector<Literal>> MakeModuleArguments(const HloModule& module,
                                                         const std::vector<std::string>& files,
                                                         uint64_t seed);

// Writes each array leaf of `result` into `directory` (created when
// missing): an array result as result.npy, tuple leaves as result.<i>.npy
// (nested: result.<i>.<j>.npy). Returns the paths written, in leaf order.
absl::StatusOr<std::vector<std::filesystem::path>> WriteResultFiles(
    const std::filesystem::path& directory, const Literal& result);

// The number of devices `module` runs on with `num_replicas` replicas: one
// per replica of each of its partitions (HloModule::num_partitions), device
// d = replica * partitions + partition (hmo/ir/collective_attributes.h).
int64_t ExecutionDeviceCount(const HloModule& module, int64_t num_replicas);

// The arguments of device `device` from a directory of per-device inputs:
// `directory/device<d>/input_<i>.npy` for every entry parameter i, read as
// MakeModuleArguments reads files (the layout bench/jax_corpus writes for
// sharded programs).
absl::StatusOr<std::vector<Literal>> ReadDeviceArguments(const HloModule& module,
                                                         const std::filesystem::path& directory,
                                                         int64_t device);

struct ModuleExecutionOptions {
  // Runs ExecutionDeviceCount(module, compile.num_replicas) devices; more
  // than one run together (Executable::ExecuteReplicated): device d gets the
  // arguments of seed `seed + d`, or ReadDeviceArguments when input_files
  // names one directory; its results go to `results_dir/device<d>/`, and
  // each is compared with the evaluator's device d
  // (HloEvaluator::EvaluateReplicated).
  CompileOptions compile;
  // Arguments as for MakeModuleArguments; with several devices, one
  // directory of per-device inputs.
  std::vector<std::string> input_files;
  uint64_t seed = 0;
  // Empty: no result files. Written only when the run passes its check (or
  // has none): a failed check leaves no results behind.
  std::filesystem::path results_dir;
  // The unoptimized module (elided constants filled with the same seed) to
  // evaluate with HloEvaluator and compare against; null: no check.
  const HloModule* reference = nullptr;
  LiteralComparisonOptions comparison;
  // The device memory limit the module was fitted to (`--memory-limit`):
  // an executable whose device arenas (ExecutableStats::DeviceArenaBytes)
  // exceed it is refused, naming the difference, before it runs.
  std::optional<int64_t> memory_limit;
  // The pipeline's target, for that message.
  std::string pipeline_target;
  // Runs of the module on every device: the first is the cold run whose
  // results are kept and checked; the others measure the warm run time (of
  // all devices together when there are several).
  int64_t repeat = 1;
  // The trip budget of every while loop, in the executable and the reference
  // evaluation alike (hmo/base/loop_trip_budget.h); -1: none.
  int64_t max_loop_trips = -1;
};

// What ExecuteModule did; filled as far as it got.
struct ModuleExecutionReport {
  bool compiled = false;
  ExecutableStats stats;
  double compile_seconds = 0;  // wall time of Backend::Compile
  bool executed = false;
  // The backend's ExecutionProfile::run_seconds (on several devices, the
  // longest device's), or the wall time of Execute / ExecuteReplicated when
  // the backend reports none.
  double run_seconds = 0;
  // With repeat > 1: the median of the warm runs' times (as run_seconds is
  // measured) and how many there were; -1 / 0 otherwise.
  double warm_median_seconds = -1;
  int64_t warm_runs = 0;
  // Peak resident set growth over the Execute call (PeakResidentSetMeter),
  // else the backend's ExecutionProfile figure; -1 when neither is known.
  int64_t peak_rss_growth_bytes = -1;
  // The backend's ExecutionProfile::device_peak_bytes and timeline (of
  // replica 0).
  int64_t device_peak_bytes = -1;
  std::vector<ExecutionProfile::StreamSpan> timeline;
  // Replica 0's result; with several replicas every replica's in
  // replica_results (replica_results[0] is a copy of `result`).
  Literal result;
  std::vector<Literal> replica_results;
  std::vector<std::filesystem::path> result_files;
  // Set when the comparison ran (also when it found a difference); over
  // every replica (outputs and elements summed, the largest difference).
  std::optional<LiteralComparisonSummary> comparison;
};

// Compiles `module` with `backend` and runs it as `options` say. Returns the
// first error: arguments, compilation (Unimplemented from a backend that
// cannot execute), execution, writing results, the reference evaluation,
// or the comparison (InvalidArgument naming the output and index).
absl::Status ExecuteModule(const Backend& backend, const HloModule& module,
                           const ModuleExecutionOptions& options, ModuleExecutionReport* report);

}  // namespace hmo

#endif  // HMO_EXECUTION_MODULE_EXECUTION_H_
