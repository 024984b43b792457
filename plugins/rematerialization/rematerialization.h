#ifndef HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_H_
#define HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_H_

// The `rematerialization` pass: trades recomputation for device memory until
// a scheduled module fits its memory limit (XLA's HloRematerialization).
//
// The limit is the pass's `memory-limit` option or, without it, the
// pipeline's (`memory-limit:` / `hmo run --memory-limit`), on the figure
// `hmo stats` reports for the device (hmo/analysis/memory_limit.h).
//
// Each step measures the module as buffer assignment lays it out, finds the
// moment its temporaries peak, and collects the blocks that free bytes there
// (rematerialization_block.h) in the computation that runs the peak and in
// every computation that calls it (a value of the entry live across the
// while loop whose body peaks). Blocks are ranked by bytes freed per
// recompute cost (FLOPs + bytes written), XLA's ranking. Then:
//   selection=estimate   the best-ranked block is applied (XLA: a greedy
//                        local estimate);
//   selection=evaluated  (default) the `evaluated-candidates` best-ranked
//                        blocks, and as many that free the most bytes, are
//                        each applied to a copy of the module and measured
//                        by buffer assignment; a block that alone reaches
//                        the limit is taken at the least cost, else the one
//                        with the most device bytes saved per cost (ties on
//                        the device figure are broken by the temporaries'
//                        peak, then by how many moments reach it).
// It stops when the module fits, when no block lowers the measure, or after
// `max-steps`. The recomputations go right before their first later use; a
// scheduler run afterwards may order them better (pipelines/
// rematerialization.yaml). When the module still does not fit, the pass
// fails (ResourceExhausted, with `fail-over-limit`, the default) naming
// what it did, the proven floor and the values live at the peak, each with
// why it cannot go.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

// What one run of the pass did.
struct RematerializationMetrics {
  struct Decision {
    std::string computation;
    std::string block;  // RematerializationBlock::ToString()
    int64_t device_bytes_before = 0;
    int64_t device_bytes_after = 0;
    int64_t flops = 0;
    int64_t bytes_written = 0;
    int64_t evaluated = 0;  // blocks measured for this decision
  };
  int64_t limit = 0;
  int64_t device_bytes_before = 0;
  int64_t device_bytes_after = 0;
  // A lower bound of the device bytes under any rematerialization: the
  // arguments and outputs, plus the largest set of temporaries one
  // instruction reads and writes at once.
  int64_t floor_bytes = 0;
  std::string floor_instruction;
  // FLOPs of one run of the module as it came, and of the recomputations.
  int64_t module_flops = 0;
  int64_t recompute_flops = 0;
  std::vector<Decision> decisions;
  bool fits = false;
  double seconds = 0;

  // One line per decision, then the totals.
  std::string ToString() const;
};

class RematerializationPass : public HloPass {
 public:
  static constexpr std::string_view kName = "rematerialization";
  static constexpr std::string_view kDescription =
      "recomputes values live across the memory peak, right before their next use, until the "
      "scheduled module fits the memory limit (XLA's rematerialization; choices measured by "
      "buffer assignment)";

  struct Options {
    std::string memory_limit;
    std::string selection;
    int64_t max_block_size = 0;
    int64_t evaluated_candidates = 0;
    int64_t max_steps = 0;
    bool fail_over_limit = true;
    int64_t trial_node_budget = 0;
  };
  static const PassOptionBinding<Options>& Binding();
  static PassOptionSchema OptionSchema() { return Binding().schema(); }
  // Errors: a memory-limit that is not a size, a non-positive bound.
  static absl::StatusOr<std::unique_ptr<RematerializationPass>> Create(const PassOptions& options);

  std::string_view name() const override { return kName; }

  // Errors: no limit (neither the option nor the pipeline's), a module
  // without a schedule, buffer assignment's errors, and (fail-over-limit)
  // a module still over the limit.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

  const RematerializationMetrics& metrics() const { return metrics_; }

 private:
  RematerializationPass() = default;

  std::optional<int64_t> memory_limit_;
  bool evaluate_ = true;
  int64_t max_block_size_ = 3;
  int64_t evaluated_candidates_ = 8;
  int64_t max_steps_ = 1000;
  bool fail_over_limit_ = true;
  int64_t trial_node_budget_ = 10000;
  RematerializationMetrics metrics_;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_H_
