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
// pass their operand through), replica-id and the synchronous collectives
// (see "Collectives" below). Anything else (rng, fft, async collective
// start/done pairs, select-and-scatter, other custom-calls, ...) is an
// Unimplemented error
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
//
// Collectives (all-reduce, all-gather, reduce-scatter, collective-permute;
// the single-operand array forms: tuple / variadic forms are Unimplemented
// naming the instruction), as XLA defines them across replicas:
//  - replica_groups: absent or "{}" = one group of all replicas, else the
//    explicit or iota form (hmo/ir/collective_attributes.h); a replica's
//    rank is its position in its group. Every replica must be in a group of
//    ids below the replica count (else INVALID_ARGUMENT).
//  - all-reduce: to_apply folded element-wise over the group's operands in
//    rank order, ((v0 op v1) op v2) ...; all-gather: the operands
//    concatenated along dimensions={d} in rank order; reduce-scatter: the
//    all-reduce value, of which rank k keeps block k along dimensions={d};
//    collective-permute: each target receives its source's operand per
//    source_target_pairs, a replica that receives nothing gets zeros.
//  - replica-id is the replica's number (u32[]).
// Evaluate runs one replica (replica 0 of 1): every collective is a group
// of one (all-reduce / all-gather / reduce-scatter return the operand;
// collective-permute returns it when {0,0} is a pair, else zeros).
// EvaluateReplicated runs N replicas, one thread each, which meet at each
// collective (matched by instruction and by how many times that instruction
// ran before on the replica, so collectives in loops pair up per
// iteration).

#include <chrono>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/literal.h"

namespace hmo {

class HloEvaluator {
 public:
  struct Options {
    // A while loop running its body more times than this in one execution
    // is an error (LoopTripBudgetExceeded, hmo/base/loop_trip_budget.h:
    // modules that never terminate). -1 = unlimited.
    int64_t max_loop_iterations = -1;
    // How long a replica of EvaluateReplicated waits at a collective for
    // the other replicas it needs before failing with DEADLINE_EXCEEDED
    // naming the missing ones (a replica that never gets there, e.g. one
    // whose conditional skips the collective, must not hang the caller).
    std::chrono::milliseconds collective_timeout{30000};
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

  // Evaluates the entry computation of `module` on N =
  // arguments_per_replica.size() replicas (N >= 1), replica r on
  // arguments_per_replica[r] (checked like Evaluate's), each on its own
  // thread with its own state; collectives exchange values among them (see
  // the top of this file). Returns the N results, result r of replica r.
  // On failure returns the error of the first replica (in replica order)
  // that failed by itself, prefixed "replica r: "; a replica missing at a
  // collective is DEADLINE_EXCEEDED after Options::collective_timeout,
  // naming it. Replicas waiting at a collective when another one fails stop
  // at once (ABORTED) instead of waiting out the timeout.
  absl::StatusOr<std::vector<Literal>> EvaluateReplicated(
      const HloModule& module, const std::vector<std::vector<Literal>>& arguments_per_replica);

 private:
  Options options_;
};

}  // namespace hmo

#endif  // HMO_EVAL_HLO_EVALUATOR_H_
