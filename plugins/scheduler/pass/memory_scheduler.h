#ifndef HMO_PLUGINS_SCHEDULER_PASS_MEMORY_SCHEDULER_H_
#define HMO_PLUGINS_SCHEDULER_PASS_MEMORY_SCHEDULER_H_

// The `memory-scheduler` pass: XLA's hlo-memory-scheduler on hmo's plugin
// strategies.
//
// Every non-fusion computation (entry, while bodies and conditions, called
// computations, conditional branches) gets an order from a scheduler strategy
// registered through the C strategy ABI; fusion computations are not
// scheduled. The module is then marked scheduled and prints in schedule
// order.
//
// With `strategy=default`, each strategy in `candidates` schedules the whole
// module and is measured on `objective`:
//   device-bytes (default)  what the user pays: buffer assignment of the
//                           candidate's schedule (XLA's heap algorithm,
//                           `alignment`), argument + output - alias + temp
//                           bytes as CompiledMemoryStats counts them (device
//                           side; both sides with memory-spaces=all);
//   heap-peak               the heap simulator's module peak
//                           (HeapSimulator::MinimumMemoryForModule,
//                           module-scoped live ranges, no fragmentation),
//                           cheaper; XLA's DefaultMemoryScheduler's measure.
// Both figures are reported per candidate; the lowest objective wins; on a tie the earlier candidate
// wins, so with XLA's candidates [list, dfs, post-order] this is XLA's
// DefaultMemoryScheduler, and appending our strategies can only lower the
// peak. A module that arrives scheduled in every computation adds its own
// order as the last candidate, "input", chosen only when strictly better,
// so the result is never worse than the input on this measure. What each candidate peaked at and which one was chosen are kept as
// MemorySchedulerMetrics (XLA's MemorySchedulerMetrics), logged, and
// readable from the pass.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"
#include "hmo/plugin/scheduler_strategy_registry.h"

namespace hmo {

// What strategy=default compares candidates on (option objective).
enum class SchedulingObjective { kDeviceBytes, kModuleBytes, kHeapPeak };

// What one run of the pass measured.
struct MemorySchedulerMetrics {
  struct Candidate {
    std::string strategy;
    // Module peak of this candidate's schedule, in bytes; -1 when invalid.
    int64_t peak_memory = -1;
    // Device bytes after buffer assignment (objective device-bytes); -1 when
    // not measured.
    int64_t device_bytes = -1;
    // False when the strategy failed; `error` says why.
    bool valid_schedule = false;
    std::string error;
    // Time to schedule and measure, in seconds, and the part of it spent
    // measuring (heap simulation and buffer assignment).
    double seconds = 0;
    double measure_seconds = 0;
  };
  std::vector<Candidate> candidates;
  // Index of the chosen candidate in `candidates`.
  int selected = -1;

  // One line per candidate ("list: 48 bytes (0.001 s)", with the device
  // bytes when measured: "list: 48 bytes, device 96 B (0.001 s)"), then
  // "selected: <strategy> (by <objective>)".
  SchedulingObjective objective = SchedulingObjective::kHeapPeak;
  std::string ToString() const;
};

class MemorySchedulerPass : public HloPass {
 public:
  static constexpr std::string_view kName = "memory-scheduler";
  static constexpr std::string_view kDescription =
      "orders every non-fusion computation for a low memory peak (XLA's memory scheduler; "
      "strategy=default keeps the candidate with the fewest device bytes after buffer "
      "assignment, or the lowest heap-simulated peak with objective=heap-peak)";

  using Objective = SchedulingObjective;
  // Whose bytes the peak counts (option memory-spaces).
  enum class CountedMemory { kDevice, kAll };

  // The options, bound to their schema (PassOptionBinding).
  // The options as given; their defaults live in Binding() alone.
  struct Options {
    std::string strategy;
    std::vector<std::string> candidates;
    std::vector<std::string> strategy_options;
    Objective objective{};
    double device_bytes_slack{};
    int64_t alignment{};
    int64_t pointer_size{};
    CountedMemory memory_spaces{};
  };
  static const PassOptionBinding<Options>& Binding();
  static PassOptionSchema OptionSchema() { return Binding().schema(); }
  // Rejects a strategy-options entry that is not `strategy.key=value`.
  static absl::StatusOr<std::unique_ptr<MemorySchedulerPass>> Create(const PassOptions& options);

  std::string_view name() const override { return kName; }

  // Schedules `module` and sets its schedule. Always returns true (the module
  // is scheduled afterwards), as XLA's pass does. Errors: an unknown strategy
  // (with the registered names), every candidate failing, or the heap
  // simulator's error.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

  const MemorySchedulerMetrics& metrics() const { return metrics_; }

 private:
  // One strategy option, forwarded to strategy `strategy`.
  struct ForwardedOption {
    std::string strategy;
    std::string key;
    std::string value;
  };

  MemorySchedulerPass() = default;
  std::vector<std::pair<std::string, std::string>> OptionsFor(std::string_view strategy) const;
  // Every strategy strategy-options names exists, and takes the options
  // forwarded to it (ResolveStrategyOptions); checked before any candidate
  // runs, so a typo fails whichever strategy would have read it.
  absl::Status CheckStrategyOptions(const SchedulerStrategyRegistry& strategies) const;

  bool counts_host_memory() const { return options_.memory_spaces == CountedMemory::kAll; }

  Options options_;
  std::vector<ForwardedOption> strategy_options_;
  // The device bytes of `module` under `schedule` as `model` measures them
  // (device side, or both with memory-spaces=all): with a preparation, the
  // target executable's arenas (the module's own schedule is put back);
  // else argument + output - alias + temp of its buffer assignment.
  absl::StatusOr<int64_t> DeviceBytes(HloModule& module, const HloSchedule& schedule,
                                      const TargetMemoryModel& model) const;

  MemorySchedulerMetrics metrics_;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_SCHEDULER_PASS_MEMORY_SCHEDULER_H_
