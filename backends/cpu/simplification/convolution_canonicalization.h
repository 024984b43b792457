#ifndef HMO_BACKENDS_CPU_SIMPLIFICATION_CONVOLUTION_CANONICALIZATION_H_
#define HMO_BACKENDS_CPU_SIMPLIFICATION_CONVOLUTION_CANONICALIZATION_H_

// convolution-canonicalization: a 2-D f32, bf16 or f16 convolution the runtime
// convolution does not compute as it stands (convolution_plan.h: other
// dim_labels or layouts, as JAX's gradient convolutions have) is rewritten,
// as XLA:CPU's ConvCanonicalization does, into transposes of its input to
// [batch, spatial, feature] and of its kernel to [spatial, input feature,
// output feature], the convolution in that order (b01f_01io->b01f, row-major),
// and a transpose of the result back to the original dimension order and
// layout. Convolutions with batch groups or window reversal stay.

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo::cpu {

class ConvolutionCanonicalization : public HloPass {
 public:
  static constexpr std::string_view kName = "convolution-canonicalization";
  static constexpr std::string_view kDescription =
      "Transpose 2-D convolutions into the runtime convolution's order (CPU backend)";

  // The pass has no options.
  static PassOptionSchema OptionSchema() { return PassOptionSchema(); }

  explicit ConvolutionCanonicalization(const PassOptions& /*options*/) {}
  ConvolutionCanonicalization() = default;

  std::string_view name() const override { return kName; }

  // Returns whether a convolution was rewritten. A scheduled module stays
  // scheduled: new instructions go right after their operands.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_SIMPLIFICATION_CONVOLUTION_CANONICALIZATION_H_
