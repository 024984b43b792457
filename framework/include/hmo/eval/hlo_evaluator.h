#ifndef HMO_EVAL_HLO_EVALUATOR_H_
#define HMO_EVAL_HLO_EVALUATOR_H_

// HloEvaluator: a plain, obviously-correct interpreter of HLO on Literals
// (XLA's HloEvaluator). It is the reference every other execution path is
// checked against, so it favours clarity over speed: every instruction is
// evaluated to a whole Literal, element by element, in row-major order.
//
// Covers every opcode the CPU code generator covers (elementwise, compare,
// select, clamp, convert, bitcast-convert, broadcast, iota, reshape, bitcast,
// transpose, copy, slice, dynamic-slice, dynamic-update-slice, concatenate,
// pad, reduce, reduce-window, gather, scatter, sort, dot, convolution, tuple,
// get-tuple-element, while, conditional, call, fusion, map, opt-barrier and
// the MoveToHost / MoveToDevice custom-calls). Anything else is an
// Unimplemented error naming the instruction.
//
// Floating-point arithmetic is done in the element type's own precision for
// f32/f64 and in f32 for narrower float types (rounded back on each result),
// as XLA:CPU does; integer arithmetic wraps; division by zero and shifts out
// of range follow XLA's semantics.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/literal.h"

namespace hmo {

class HloEvaluator {
 public:
  struct Options {
    // A while loop running more iterations than this is an error (guards
    // against modules that never terminate). -1 = unlimited.
    int64_t max_loop_iterations = -1;
  };

  HloEvaluator() = default;
  explicit HloEvaluator(Options options) : options_(options) {}

  // Evaluates the entry computation of `module` with `arguments`, one per
  // entry parameter (shapes must match ignoring layout). Elided constants are
  // an error (fill them first, see hmo/execution/random_literals.h).
  absl::StatusOr<Literal> Evaluate(const HloModule& module, absl::Span<const Literal> arguments);

  // Evaluates `computation` with `arguments`, one per parameter.
  absl::StatusOr<Literal> Evaluate(const HloComputation& computation,
                                   absl::Span<const Literal> arguments);

 private:
  Options options_;
};

}  // namespace hmo

#endif  // HMO_EVAL_HLO_EVALUATOR_H_
