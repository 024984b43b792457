#ifndef HMO_BACKENDS_CPU_SIMPLIFICATION_TRANSPOSE_FOLDING_H_
#define HMO_BACKENDS_CPU_SIMPLIFICATION_TRANSPOSE_FOLDING_H_

// transpose-folding: a dot operand that is a transpose is replaced by the
// transpose's operand, with the dot's contracting and batch dimensions
// renumbered through the permutation (as XLA:CPU's TransposeFolding does
// before fusion). The dot reads the same elements; the transposed copy is no
// longer materialised (it goes when nothing else uses it).
//
// A transpose is folded only when the dot's output keeps its dimension order:
// the dot's free dimensions of that operand, taken in increasing order, stay
// in increasing order in the transpose's operand; and a dot the runtime GEMM
// computes (gemm_plan.h) must stay one.

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo::cpu {

class TransposeFolding : public HloPass {
 public:
  static constexpr std::string_view kName = "transpose-folding";
  static constexpr std::string_view kDescription =
      "Fold transposed dot operands into the dot's dimension numbers (CPU backend)";

  // The pass has no options.
  static PassOptionSchema OptionSchema() { return PassOptionSchema(); }

  explicit TransposeFolding(const PassOptions& /*options*/) {}
  TransposeFolding() = default;

  std::string_view name() const override { return kName; }

  // Returns whether a transpose was folded. A scheduled module stays
  // scheduled (a transpose left unused leaves its sequence).
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_SIMPLIFICATION_TRANSPOSE_FOLDING_H_
