#ifndef HMO_PLUGINS_PROPAGATION_MEMORY_SPACE_PROPAGATION_H_
#define HMO_PLUGINS_PROPAGATION_MEMORY_SPACE_PROPAGATION_H_

// memory-space-propagation: makes the inside of fused computations agree with
// the memory spaces `S(n)` and split configs `SC(...)` their fusion
// instructions were given (e.g. by memory-space assignment), as XLA's
// MemorySpacePropagation does.
//
// The module's dataflow is analysed with bitcasts defining values (so a
// bitcast between a fusion's input and output keeps them apart). Then, for
// every fusion instruction in a non-fusion computation, each leaf of each
// operand is propagated into the matching fused parameter, and each leaf of
// the fusion's output into the fused root. Propagating a leaf's layout into a
// value sets the memory space, and replaces the split configs with the
// source's first one (or none), at every position of the value, and goes on
//   - into operand 0 of a dynamic-update-slice position (updated in place),
//   - into the fused root of a fusion position (a nested fusion's output),
//   - from a nested fusion computation's root up to its fusion instruction,
//     and from its parameter up to the fusion's operand,
//   - into the fused parameter of every nested fusion that uses the value,
// visiting each value once per seed. Instructions outside fused computations
// change only through the pop-up from nested fusions.
//
// With the option `computations`, the pass instead runs the per-computation
// entry point (XLA's RunOnComputation) on each named computation: the seeds
// are that computation's own parameter and root leaves.

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/analysis/hlo_value.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/shape.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

class MemorySpacePropagation : public HloPass {
 public:
  static constexpr std::string_view kName = "memory-space-propagation";
  static constexpr std::string_view kDescription =
      "Propagate memory spaces S(n) and split configs from fusion operands and outputs into "
      "fused computations";

  struct Options {
    std::vector<std::string> computations;
  };
  static const PassOptionBinding<Options>& Binding();
  static PassOptionSchema OptionSchema() { return Binding().schema(); }
  static absl::StatusOr<std::unique_ptr<MemorySpacePropagation>> Create(const PassOptions& options);
  explicit MemorySpacePropagation(std::vector<std::string> computations)
      : computations_(std::move(computations)) {}
  MemorySpacePropagation() = default;

  std::string_view name() const override { return kName; }

  // Returns whether any shape's layout changed. Errors: the dataflow analysis
  // fails, or a computation named in `computations` does not exist.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

  // The per-computation entry point: propagates from `computation`'s
  // parameter leaves and root leaves. Precondition: `analysis` is a dataflow
  // analysis of the computation's module with bitcast_defines_value, and
  // stays valid during the call. Returns whether a layout changed.
  static bool RunOnComputation(HloComputation* computation, const HloDataflowAnalysis& analysis);

 private:
  std::vector<std::string> computations_;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_PROPAGATION_MEMORY_SPACE_PROPAGATION_H_
