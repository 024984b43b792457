#ifndef HMO_EVAL_HLO_EVALUATOR_H_
#define HMO_EVAL_HLO_EVALUATOR_H_

// HloEvaluator: a plain, obviously-correct interpreter of HLO on Literals
// (XLA's HloEvaluator). It is the reference every other execution path is
// checked against, so it favours clarity over speed: every instruction is
// evaluated to a whole Literal, element by element, in row-major order.
//
// Covers every opcode the CPU code generator covers (elementwise, compare,
// select, clamp, convert, bitcast-convert, broadcast, iota, reshape, bitcast,
// transpose, reverse, copy, slice, dynamic-slice, dynamic-update-slice,
// concatenate, pad, reduce, reduce-window, gather, scatter, sort, dot,
// convolution, tuple, get-tuple-element, while, conditional, call, fusion,
// map, opt-barrier, copy-start/copy-done, after-all and the placement
// custom-calls MoveToHost / MoveToDevice / annotate_device_placement, which
// pass their operand through). Anything else (rng, fft, collectives,
// select-and-scatter, other custom-calls, ...) is an Unimplemented error
// naming the instruction. Element types: pred, s8..s64, u8..u64, f16, bf16,
// f32, f64; any other element type is Unimplemented for computing opcodes
// (pure data movement copies any type).
//
// Semantics follow XLA:
//  - Floating-point arithmetic is done in the element type's own precision
//    for f32/f64 and in f32 for f16/bf16, rounded to nearest-even on every
//    result (so a bf16 reduce rounds after each step, as its bf16 reducer
//    computation does). dot and convolution accumulate in f32 (f64 when f64
//    is involved) and round once; integer dots wrap.
//  - Integer arithmetic wraps; x / 0 = -1, x % 0 = x, INT_MIN / -1 =
//    INT_MIN; shifts by >= the bit width give 0 (sign fill for arithmetic
//    right shifts); maximum/minimum propagate NaN.
//  - convert from float to integer saturates and maps NaN to 0.
//  - dynamic-slice / dynamic-update-slice / gather clamp start indices so the
//    slice fits; scatter skips update windows that do not fit and applies
//    to_apply in row-major order of the updates (repeated indices combine in
//    that order).
//  - conditional with an index out of range runs the last branch.
//  - sort is always stable (a valid result for is_stable=false too).
//  - Only instructions the root depends on are evaluated.

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

  // Evaluates `computation` with `arguments`, one per parameter (shapes must
  // match ignoring layout). Any computation of a module may be evaluated
  // (e.g. a branch or a loop body), not only the entry.
  absl::StatusOr<Literal> Evaluate(const HloComputation& computation,
                                   absl::Span<const Literal> arguments);

 private:
  Options options_;
};

}  // namespace hmo

#endif  // HMO_EVAL_HLO_EVALUATOR_H_
