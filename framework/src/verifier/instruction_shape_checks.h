#ifndef HMO_SRC_VERIFIER_INSTRUCTION_SHAPE_CHECKS_H_
#define HMO_SRC_VERIFIER_INSTRUCTION_SHAPE_CHECKS_H_

// Per-instruction shape checks of the HLO verifier (phase 4 of
// hlo_verifier.h): each opcode's shape against the shape inferred from its
// operands and attributes (shape_inference.h), plus the signatures of called
// computations. Internal to libhmo_framework.
//
// Preconditions (established by the structure phase; callers skip
// instructions that fail them): operand count valid for the opcode, called
// computations present in the module with usable roots/parameter lists.

#include <optional>
#include <string>
#include <string_view>

#include "hmo/ir/hlo_instruction.h"
#include "hmo/verifier/hlo_verifier.h"
#include "hmo/ir/shape_equality.h"
#include "hmo/ir/shape_inference.h"

namespace hmo::verifier_internal {

struct RuleViolation {
  std::string rule;
  std::string message;
};
using ShapeCheckResult = std::optional<RuleViolation>;

inline ShapeCheckResult Violation(std::string_view rule, std::string message) {
  return RuleViolation{std::string(rule), std::move(message)};
}

class ShapeCheckContext {
 public:
  explicit ShapeCheckContext(const HloVerifierOptions& options) : options_(options) {}

  const HloVerifierOptions& options() const { return options_; }
  ShapeInferenceOptions inference() const {
    return ShapeInferenceOptions{options_.allow_mixed_precision};
  }
  // Comparison options: `forwarding` means the two shapes describe the same
  // buffer (layouts compared when layout_sensitive).
  ShapeEqualityOptions equality(bool forwarding) const {
    ShapeEqualityOptions o;
    o.compare_layouts = forwarding && options_.layout_sensitive;
    o.ignore_fp_precision = options_.allow_mixed_precision;
    return o;
  }
  // nullopt when `actual` matches `expected`; else a violation under `rule`
  // (or "layout" when only layouts differ) saying
  // "<what> <actual> does not match <expected_what> <expected>".
  ShapeCheckResult Expect(const Shape& actual, const Shape& expected, std::string_view rule,
                          bool forwarding, std::string_view what,
                          std::string_view expected_what) const;
  // Instruction shape vs an inferred shape (not forwarding).
  ShapeCheckResult ExpectInferred(const HloInstruction& instruction, const Shape& inferred,
                                  std::string_view rule) const {
    return Expect(instruction.shape(), inferred, rule, /*forwarding=*/false, "shape",
                  "the inferred shape");
  }

 private:
  const HloVerifierOptions& options_;
};

// The shape check for `instruction`'s opcode.
ShapeCheckResult CheckInstructionShape(const HloInstruction& instruction,
                                       const ShapeCheckContext& ctx);

// Control-flow and called-computation boundaries (control_flow_shape_checks.cc).
ShapeCheckResult CheckWhileShape(const HloInstruction& instruction, const ShapeCheckContext& ctx);
ShapeCheckResult CheckConditionalShape(const HloInstruction& instruction,
                                       const ShapeCheckContext& ctx);
ShapeCheckResult CheckCallShape(const HloInstruction& instruction, const ShapeCheckContext& ctx);
ShapeCheckResult CheckFusionShape(const HloInstruction& instruction, const ShapeCheckContext& ctx);
// output_to_operand_aliasing of fusion / custom-call.
ShapeCheckResult CheckOutputOperandAliasing(const HloInstruction& instruction);

}  // namespace hmo::verifier_internal

#endif  // HMO_SRC_VERIFIER_INSTRUCTION_SHAPE_CHECKS_H_
