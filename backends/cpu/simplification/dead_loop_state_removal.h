#ifndef HMO_BACKENDS_CPU_SIMPLIFICATION_DEAD_LOOP_STATE_REMOVAL_H_
#define HMO_BACKENDS_CPU_SIMPLIFICATION_DEAD_LOOP_STATE_REMOVAL_H_

// dead-loop-state-removal: drops the elements of a while loop's state that
// nothing needs, as XLA's while-loop simplifier does before copy insertion.
// An element is needed when the condition reads it, a user of the loop reads
// its final value, an instruction of the body with side effects or control
// edges depends on it, or the body computes a needed element from it. Every
// other element (a second induction variable JAX's fori_loop carries, a
// value the loop only passes along and nobody reads after it) costs a loop
// buffer and, when its initial value is a constant or a parameter the loop
// may not overwrite, a copy, on every backend.
//
// Rewrites only loops it can see whole: a body and condition called by this
// loop alone, read through get-tuple-element only, a tuple instruction as the
// body's root, and get-tuple-element as the loop's only users. The loop keeps
// its name, attributes and place in the schedule; the body and condition are
// changed in place.

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo::cpu {

class DeadLoopStateRemoval : public HloPass {
 public:
  static constexpr std::string_view kName = "dead-loop-state-removal";
  static constexpr std::string_view kDescription =
      "Drop while-loop state elements that neither the condition, the loop's users nor the "
      "needed elements read (CPU backend)";

  // The pass has no options.
  static PassOptionSchema OptionSchema() { return PassOptionSchema(); }

  explicit DeadLoopStateRemoval(const PassOptions& /*options*/) {}
  DeadLoopStateRemoval() = default;

  std::string_view name() const override { return kName; }

  // Returns whether any loop lost an element.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_SIMPLIFICATION_DEAD_LOOP_STATE_REMOVAL_H_
