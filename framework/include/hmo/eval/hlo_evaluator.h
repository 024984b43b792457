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
// pass their operand through), select-and-scatter, replica-id, partition-id
// and the collectives (see "Devices and collectives" below). Anything else
// (rng, fft, send/recv, ragged-all-to-all, async-start/-done wrappers,
// other custom-calls, ...) is an Unimplemented error naming the
// instruction. Element types: pred, s8..s64, u8..u64, f16, bf16,
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
// Devices and collectives, as XLA defines them for SPMD programs:
//  - EvaluateReplicated runs D devices, one thread each, on a grid of
//    replica_count = D / module.num_partitions() replicas by num_partitions
//    partitions: device d is replica d / num_partitions, partition
//    d % num_partitions. replica-id and partition-id (u32[]) return those.
//    Devices meet at each collective, matched by instruction and by how
//    many times that instruction ran before on the device (so collectives
//    in loops pair up per iteration).
//  - Who takes part: CollectiveParticipants / CollectivePermutePeers
//    (hmo/ir/collective_attributes.h), i.e. XLA's group modes from
//    channel_id and use_global_device_ids (cross-replica,
//    cross-partition, cross-replica-and-partition, flattened ids) over
//    explicit, iota or mesh replica_groups; absent or "{}" is one group of
//    everything the mode spans. A device's rank is its position in its
//    participant list. Unreadable groups, ids past the grid, or a device in
//    no group are INVALID_ARGUMENT.
//  - all-reduce: to_apply folded element-wise over the participants'
//    operands in rank order, ((v0 op v1) op v2) ..., rounded to the element
//    type after each step. all-gather: the operands concatenated along
//    dimensions={d} in rank order. reduce-scatter: the all-reduce value, of
//    which rank k keeps block k along dimensions={d}. These three also take
//    several array operands with a tuple result (each element on its own).
//  - all-to-all with dimensions={d} (one array operand): the operand is cut
//    into N chunks along d, chunk k going to rank k; the result's chunk k is
//    what rank k sent to this rank. Without dimensions (N array operands, N
//    = the group size, tuple result): result k is rank k's operand <this
//    rank>.
//  - collective-broadcast: every participant gets the operands of rank 0 of
//    its group.
//  - collective-permute: a device receives its source's operands (pairs
//    name partitions with a channel_id, replicas without); one without a
//    source gets zeros. Several array operands with a tuple result are
//    permuted each; the in-place form (slice offsets) is Unimplemented.
//  - Async pairs: all-reduce-start is the all-reduce (its shape is the
//    result) and all-reduce-done passes it through; all-gather-start is
//    (operands, results) and collective-permute-start (operands, results,
//    u32[] contexts, which are zeros); their -done returns element 1.
//  - Operands must be arrays (a tuple-shaped operand is Unimplemented).
// Evaluate runs one device (replica 0, partition 0 of a 1x1 grid, whatever
// the module's num_partitions): every collective is a group of one
// (all-reduce / all-gather / reduce-scatter / all-to-all /
// collective-broadcast return the operand; collective-permute returns it
// when {0,0} is a pair, else zeros); groups naming other ids are
// INVALID_ARGUMENT.

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
    // How long a device of EvaluateReplicated waits at a collective for
    // the other devices it needs before failing with DEADLINE_EXCEEDED
    // naming the missing ones (a device that never gets there, e.g. one
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

  // Evaluates the entry computation of `module` on D =
  // arguments_per_device.size() SPMD devices (D >= 1, a multiple of
  // module.num_partitions(), else INVALID_ARGUMENT), device d on
  // arguments_per_device[d] (checked like Evaluate's), each on its own
  // thread with its own state; collectives exchange values among them (see
  // the top of this file). Returns the D results, result d of device d.
  // On failure returns the error of the first device (in device order) that
  // failed by itself, prefixed "replica d: " when there is one partition,
  // else "device d (replica r, partition p): "; a device missing at a
  // collective is DEADLINE_EXCEEDED after Options::collective_timeout,
  // naming it. Devices waiting at a collective when another one fails stop
  // at once (ABORTED) instead of waiting out the timeout.
  absl::StatusOr<std::vector<Literal>> EvaluateReplicated(
      const HloModule& module, const std::vector<std::vector<Literal>>& arguments_per_device);

 private:
  Options options_;
};

}  // namespace hmo

#endif  // HMO_EVAL_HLO_EVALUATOR_H_
