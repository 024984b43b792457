#ifndef HMO_PLUGINS_REMATERIALIZATION_MEMORY_FITTER_H_
#define HMO_PLUGINS_REMATERIALIZATION_MEMORY_FITTER_H_

// The search both memory-limit passes run (`rematerialization`, `fit`):
// lower the device bytes of a scheduled module, one change at a time, until
// it fits a limit, at the least cost in time.
//
// Each step measures the module as buffer assignment lays it out
// (hmo/analysis/memory_limit.h), finds the moment its temporaries peak and
// collects the changes that free bytes there, in the computation that runs
// the peak and in every computation that calls it (a value of the entry live
// across the while loop whose body peaks):
//   recompute  a value and the operands that would otherwise outlive the
//              peak (rematerialization_block.h): FLOPs and bytes written;
//   offload    the value kept in host memory across the peak
//              (host_offload_choice.h), or a loop's stack kept there a
//              slice per iteration (loop_state_offload.h): its bytes, to
//              host and back.
// Changes are ranked by bytes freed per second of cost (the backend's
// rates, BackendCostRates). Then:
//   evaluate=false  the best-ranked change is applied (XLA's greedy choice
//                   on a local estimate);
//   evaluate=true   the `evaluated_candidates` best-ranked changes, and as
//                   many freeing the most bytes, are each applied to a copy
//                   and measured by buffer assignment; one that alone meets
//                   the limit is taken at the least cost, else the one with
//                   the most device bytes saved per second (ties on the
//                   device figure are broken by the temporaries' peak, then
//                   by how many moments reach it).
// It stops when the module fits, when no change lowers the measure, or
// after `max_steps`; it does not start when the limit is below the proven
// floor (rematerialization_floor.h). Greedy by cost can walk into a dead end: when it stops
// short and `fallback` is set, searches from the module as it came follow
// until one fits (the same order measuring four times the candidates per
// step; bytes freed alone; then, with both kinds, offload alone, which never
// extends an operand's life); the best stays.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/base/progress_sink.h"
#include "hmo/plugin/backend.h"

namespace hmo {

struct MemoryFitterOptions {
  bool recompute = true;
  bool offload = false;
  bool evaluate = true;
  int64_t max_block_size = 3;
  int64_t evaluated_candidates = 8;
  int64_t max_steps = 1000;
  // Branch-and-bound nodes of the temp packing that measures a candidate
  // and each step taken (the full budget, the pipeline's limit check's,
  // measures a step that may fit).
  int64_t trial_node_budget = 10000;
  // Candidates measured at once (each on its own copy of the module); the
  // choice is the one measuring them one by one gives.
  int64_t threads = 1;
  bool fallback = true;
  BackendCostRates rates;
  // The target's memory model (the pipeline's `target:`): every step is
  // measured with its assignment options, and the result with all of it
  // (CheckTargetMemoryLimit: the device arenas its executable allocates).
  TargetMemoryModel model;
  // Where each step of a search is reported (the search's order, the step,
  // the device bytes against the limit); null: nowhere.
  ProgressSink* progress = nullptr;
};

// What one fitting did.
struct MemoryFitMetrics {
  struct Decision {
    enum class Kind { kRecompute, kOffload };
    Kind kind = Kind::kRecompute;
    std::string computation;
    std::string change;  // "fusion.3 (with 1 operand)", "copy.4 to host"
    // Where the user's program made the value recomputed or offloaded (a
    // loop's stacks: the loop), hmo/ir/instruction_source.h: its innermost
    // frame "file:line (function)" and op_name, empty when the module's
    // metadata names none; a fusion's fused sources (FusedSources).
    std::string source;
    std::string op_name;
    std::vector<std::string> fused_sources;
    int64_t device_bytes_before = 0;
    int64_t device_bytes_after = 0;
    int64_t flops = 0;              // recomputed
    int64_t transferred_bytes = 0;  // to host and back
    double seconds = 0;             // estimated cost
    int64_t evaluated = 0;          // changes measured for this decision

    // "recompute" / "offload".
    std::string_view kind_name() const;
    // "; op jit(f)/mul; made at f.py:3 (f)" (with "; fuses ops from ..."
    // before "made at" when the fused ops name other lines), or "; no
    // source in the module's metadata".
    std::string SourceText() const;
  };
  int64_t limit = 0;
  int64_t device_bytes_before = 0;
  int64_t device_bytes_after = 0;
  // A lower bound of the device bytes under any of these changes
  // (rematerialization_floor.h), the instruction that sets it and what the
  // bound adds up.
  int64_t floor_bytes = 0;
  std::string floor_instruction;
  std::string floor_reason;
  // FLOPs of one run of the module as it came, and the totals of the
  // decisions.
  int64_t module_flops = 0;
  int64_t recompute_flops = 0;
  int64_t offloaded_bytes = 0;  // bytes kept in host memory (each moved twice)
  double cost_seconds = 0;
  std::vector<Decision> decisions;
  bool fits = false;
  // How the changes were ranked ("bytes freed per second", or the
  // fallback's "bytes freed ...").
  std::string ranking;
  double seconds = 0;  // time to fit
  // MemoryLimitCheck::Describe() of the module as left: when it does not
  // fit, the peak and the values live then with why each stays.
  std::string limit_check;

  // One line per decision (ending with its SourceText), then the totals.
  std::string ToString() const;
  // Why the module does not fit: what was done, the floor, limit_check.
  std::string FailureMessage() const;
};

// Fits scheduled `module` under `limit` device bytes as described above.
// Returns the metrics whether or not it fits; errors: no schedule, buffer
// assignment's errors.
absl::StatusOr<MemoryFitMetrics> FitModuleToMemoryLimit(HloModule& module, int64_t limit,
                                                        const MemoryFitterOptions& options);

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_MEMORY_FITTER_H_
