#ifndef HMO_BACKENDS_CPU_SIMPLIFICATION_RESHAPE_TO_BITCAST_H_
#define HMO_BACKENDS_CPU_SIMPLIFICATION_RESHAPE_TO_BITCAST_H_

// reshape-to-bitcast: a reshape whose operand and result are both laid out
// row-major (minor_to_major = {rank-1, ..., 0}, no tiles, no element size,
// one memory space, static, same element type) keeps every element at its
// byte offset, so it becomes a bitcast: it reads its operand's buffer instead
// of copying it into one of its own (what XLA's layout-sensitive algebraic
// simplifier does with ReshapeIsBitcast). A computation's root stays a
// reshape (copy insertion and the callers rely on the root's own buffer),
// except in a computation only `call`s run.
//
// Run after cpu-fusion (reshapes fused into a consumer cost no buffer).

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo::cpu {

// Whether `reshape` (any instruction) is a reshape that keeps every byte in
// place under the rule above.
bool IsBitcastReshape(const HloInstruction& reshape);

class ReshapeToBitcast : public HloPass {
 public:
  static constexpr std::string_view kName = "reshape-to-bitcast";
  static constexpr std::string_view kDescription =
      "Turn reshapes of row-major arrays into bitcasts, which own no buffer (CPU backend)";

  // The pass has no options.
  static PassOptionSchema OptionSchema() { return PassOptionSchema(); }

  explicit ReshapeToBitcast(const PassOptions& /*options*/) {}
  ReshapeToBitcast() = default;

  std::string_view name() const override { return kName; }

  // Returns whether a reshape was replaced. A scheduled module stays
  // scheduled (the bitcast takes the reshape's place).
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_SIMPLIFICATION_RESHAPE_TO_BITCAST_H_
