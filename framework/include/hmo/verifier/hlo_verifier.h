#ifndef HMO_VERIFIER_HLO_VERIFIER_H_
#define HMO_VERIFIER_HLO_VERIFIER_H_

// The HLO verifier: checks that a module is well formed (structure, shapes,
// control edges, schedule, input/output aliasing). Run after parsing and
// after every pass (the pass manager appends "after pass X" to the error).
//
// Checks run in this order, and VerifyHloModule reports the first violation
// in that order (computations in module order, instructions in computation
// order):
//   1. module: entry computation exists, unique names (computations per
//      module, instructions per computation);
//   2. per computation: structure (parents, root, parameters, operand counts,
//      operand/user and control edge symmetry, called computations, shape
//      validity); then module-wide: the entry is not called, fusion
//      computations have one fusion caller, the call graph is acyclic;
//   3. per computation: no cycle through data + control edges;
//   4. per instruction: shapes (per-opcode inference, see shape_inference.h),
//      skipping instructions whose structure was already reported broken or
//      that call a broken computation; then entry_computation_layout;
//   5. schedule (when the module has one and verify_schedule);
//   6. input_output_alias / buffer_donor (when verify_alias_config).
//
// Rule identifiers (HloVerifierError::rule):
//   structure: entry-computation, unique-names, computation-parent,
//     instruction-parent, root, parameter-numbering, operand-count,
//     operand-in-computation, user-operand-symmetry, control-edge,
//     called-computation, fusion-caller, call-graph-cycle, cycle, shape-valid,
//     entry-computation-layout
//   shapes: elementwise-shapes and elementwise-types (unary/binary
//     elementwise ops), compare,
//     select, clamp, convert (also stochastic-convert), bitcast-convert,
//     bitcast, broadcast, reshape, transpose, reverse, slice, dynamic-slice,
//     dynamic-update-slice, concatenate, pad, iota, constant, copy,
//     get-tuple-element, tuple, opt-barrier, domain, dot, convolution, reduce,
//     reduce-window, select-and-scatter, gather, scatter, map, sort, while,
//     conditional, call, fusion, fusion-layout (a fusion and its fused root
//     lay their result out alike, checked always), output-operand-aliasing,
//     all-reduce,
//     collective (all-gather, reduce-scatter, all-to-all, collective-permute,
//     collective-broadcast), async (copy-start/-done, async-*,
//     all-reduce-done), token (after-all, add-dependency, infeed, outfeed),
//     rng, misc (partition-id, replica-id, get/set-dimension-size),
//     layout (layout_sensitive only: shapes agree except for layouts)
//   schedule (schedule_verifier.h): schedule-module, schedule-missing-sequence,
//     schedule-extra-sequence, schedule-foreign-instruction, schedule-duplicate,
//     schedule-missing-instruction, schedule-order
//   aliasing (alias_verifier.h): alias-output-index, alias-parameter,
//     alias-shape, alias-size, alias-memory-space, alias-duplicate-parameter,
//     buffer-donor, buffer-donor-aliased
//
// Deliberate leniencies (XLA accepts these modules, so hmo does too):
//   - layout_sensitive=false (default) ignores layouts everywhere; e.g.
//     attention_model.hlo has while bodies whose root layouts differ from the
//     while's layouts.
//   - allow_mixed_precision=true (default) lets floating-point element types
//     differ wherever shapes are compared (bf16 vs f32), except between the
//     operands and result of an elementwise op (rule elementwise-types),
//     which every consumer computes in one type.
//   - dot/convolution result element types are free (preferred element type).
//   - custom-call, send/recv, infeed/outfeed data shapes, rng-bit-generator,
//     *-start/-done pairs other than copy-start/done and all-reduce: operand
//     counts only.
//   - bitcast: an array of an array with equal byte sizes (always).
//   - select may take a scalar predicate; clamp scalar bounds.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/verifier_error.h"

namespace hmo {

struct HloVerifierOptions {
  // Compare layouts where an instruction forwards its operand's buffer
  // unchanged (tuple, get-tuple-element, while/call/conditional/fusion
  // boundaries, parameters vs entry_computation_layout, copy-done, opt-barrier,
  // domain, add-dependency).
  // Memory spaces are never compared by this option (they legitimately differ
  // across copies and async boundaries).
  bool layout_sensitive = false;
  // Floating-point element types may differ wherever two shapes must agree.
  bool allow_mixed_precision = true;
  // Check the module's schedule when it has one.
  bool verify_schedule = true;
  // Check input_output_alias and buffer_donor against the entry signature.
  bool verify_alias_config = true;
  // Per-opcode shape inference (phase 4). Off: structure, schedule and
  // aliasing only.
  bool verify_shapes = true;
  // Computation names unique in the module, instruction names unique in
  // their computation (not module-wide: the parser keeps names as written).
  bool verify_unique_names = true;
  // An explicit entry_computation_layout agrees with the entry's parameters
  // and root (dimensions/types; layouts too when layout_sensitive).
  bool verify_entry_computation_layout = true;
};

// Returns OK, or absl::InvalidArgumentError whose message is the first
// violation's HloVerifierError::ToString().
absl::Status VerifyHloModule(const HloModule& module, const HloVerifierOptions& options = {});

// Every violation, in check order (empty when the module verifies).
std::vector<HloVerifierError> CollectVerifierErrors(const HloModule& module,
                                                    const HloVerifierOptions& options = {});

// Runs the checks with `sink` receiving the errors (stops when sink.full()).
void RunHloVerifier(const HloModule& module, const HloVerifierOptions& options,
                    VerifierErrorSink& sink);

// A verifier object for pipelines: holds options, verifies modules.
class HloVerifier {
 public:
  explicit HloVerifier(HloVerifierOptions options = {}) : options_(options) {}

  const HloVerifierOptions& options() const { return options_; }
  std::string name() const { return "hlo-verifier"; }

  // Same as VerifyHloModule(module, options()).
  absl::Status Run(const HloModule& module) const;
  // Same as CollectVerifierErrors(module, options()).
  std::vector<HloVerifierError> CollectErrors(const HloModule& module) const;

 private:
  HloVerifierOptions options_;
};

}  // namespace hmo

#endif  // HMO_VERIFIER_HLO_VERIFIER_H_
