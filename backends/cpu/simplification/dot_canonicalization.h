#ifndef HMO_BACKENDS_CPU_SIMPLIFICATION_DOT_CANONICALIZATION_H_
#define HMO_BACKENDS_CPU_SIMPLIFICATION_DOT_CANONICALIZATION_H_

// dot-canonicalization: rewrites floating-point dots the runtime GEMM cannot
// take into dots it can, as XLA:CPU does before fusion (its operand upcasting
// and DotDecomposer):
//   - a dot whose operands and result are bf16 (or all f16) keeps its
//     operands and gets an f32 result that a convert narrows back: the
//     runtime's bf16 (f16) GEMM multiplies the 16-bit values and accumulates
//     in f32 (oneDNN; the BLAS on blocks widened in bounded scratch), the
//     rounding XLA:CPU's f32 dot between converts gives, without the
//     operands' f32 copies;
//   - a dot that mixes f16 and bf16 is computed in f32: converts to f32 on
//     the operands, the dot in f32, a convert back to the result's type;
//   - a dot of element types a runtime GEMM takes (gemm_plan.h's
//     RuntimeGemmElementTypes: f32, f64, bf16 or f16 into f32, s8 into s32) with a row-major
//     result whose operands are not laid out as matrices gets a transpose on
//     each such operand, to
//     [batch, free, contracting] (lhs) or [batch, contracting, free] (rhs)
//     order, row-major; the dot's dimension numbers follow.
//   - a transpose of a matrix product used only by it, whose users are all
//     elementwise, becomes the product of the swapped operands,
//     (AB)^T = B^T A^T, written row-major (XLA's simplifier does the same):
//     no transposed copy, and the users read consecutive elements.
// Only dots where the GEMM repays the copies are rewritten (m*n*k above
// eight times the elements of the three matrices); smaller ones, such as
// matrix-vector products, stay generated loops.
// The rewritten dot computes the same values; its f32 operands, f32 product
// and transposed copies are buffers of the module, so the memory plan counts
// them.

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo::cpu {

class DotCanonicalization : public HloPass {
 public:
  static constexpr std::string_view kName = "dot-canonicalization";
  static constexpr std::string_view kDescription =
      "Compute bf16/f16 dots into f32 and transpose dot operands into GEMM order (CPU backend)";

  // The pass has no options.
  static PassOptionSchema OptionSchema() { return PassOptionSchema(); }

  explicit DotCanonicalization(const PassOptions& /*options*/) {}
  DotCanonicalization() = default;

  std::string_view name() const override { return kName; }

  // Returns whether a dot was rewritten. A scheduled module stays scheduled:
  // new instructions go right after their operands.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_SIMPLIFICATION_DOT_CANONICALIZATION_H_
