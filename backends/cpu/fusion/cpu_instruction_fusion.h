#ifndef HMO_BACKENDS_CPU_FUSION_CPU_INSTRUCTION_FUSION_H_
#define HMO_BACKENDS_CPU_FUSION_CPU_INSTRUCTION_FUSION_H_

// cpu-fusion: loop fusion for the CPU backend, in the spirit of XLA's
// InstructionFusion as configured for CPU (single-output kLoop fusions and
// kInput reduction fusions, duplication of cheap producers allowed).
//
// Which computations: the entry and computations reached through control
// flow (while body/condition, conditional branches, call). Scalar
// computations applied by reduce, sort, map, scatter, ... are left alone,
// since their callers' emitters call them as plain scalar functions.
//
// Order: each such computation's instructions are visited in reverse post
// order, so a consumer is visited before its producers. A visited consumer
// absorbs fusible operands one at a time, re-examining the operands of the
// growing fusion until none is fusible; the chain of producers above it is
// thereby fused top-down in one visit.
//
// A producer P (operand of consumer C) is fused into C when all hold:
//   * C is elementwise (a non-fusion elementwise opcode) or a kLoop fusion;
//     or C is a reduce of one array-shaped input or a kInput fusion rooted at
//     one (a reduction fusion: its producers run inside the reduction loop,
//     as in XLA's reduction fusions; the reduce itself is never a producer),
//     when it reads less than the backend splits into parts (IsReductionHost
//     in hmo/codegen/fusion/loop_fusion_rules.h: a larger producer keeps its own vectorized,
//     partitioned loop).
//   * P is in the same computation, array-shaped, has no side effects and no
//     control predecessors or successors (edges would have no instruction to
//     attach to once P disappears into a fused computation).
//   * P is of a loop-fusible kind:
//       - elementwise opcodes (bitcast-convert only between equal widths),
//       - broadcast, iota,
//       - reshape whose operand and result both have the default descending
//         layout (a reindexing of the same row-major bytes, no relayout),
//       - bitcast that keeps the element type and the element count,
//       - slice whose operand and result have the same layout,
//       - constants that are effectively scalar, and only into a C that is
//         already a fusion (as XLA's CPU fusion: no fusion made of just a
//         constant and one instruction). Larger constants stay outside so
//         their data is not copied into every fused computation,
//       - a kLoop fusion whose fused instructions are all of the kinds above
//         (its body is inlined).
//     Never fused as producers: parameters, tuples, get-tuple-element,
//     transpose, concatenate, pad, reverse, dynamic-(update-)slice, gather,
//     scatter, reduce, reduce-window, dot, convolution, sort, while, call,
//     conditional, custom-call, collectives, and other fusion kinds.
//   * Duplication: when P has users besides C, fusing duplicates P's work
//     (P stays for its other users). That is done only for cheap P; an
//     expensive P (IsExpensiveForFusion in hmo/codegen/fusion/loop_fusion_rules.h: divide, exp,
//     log, tanh, power, sqrt, ... as XLA's IsExpensive) with several users is not fused. Such a P
//     is still fused when its other users were fused into C first (then C is its only user), so
//     nothing is computed twice.
//
// Output fusions: after that, in each computation, a dot or convolution
// whose only user is an elementwise instruction or a kLoop fusion reading it
// at its own output index only (through elementwise instructions of the
// product's dimensions) is fused into that user, which becomes a kOutput
// fusion, when the runtime computes the product (a GEMM, or the 2-D
// convolution; LoopFuser::FuseProductIntoEpilogue): the backend applies the
// epilogue to each tile of the library's product, and the product has no
// buffer of its own.
//
// Sibling reductions: last, in each computation that has no schedule yet,
// reductions (array-shaped reduces, and the reduction fusions just made of
// one) that share a non-scalar operand and reduce inputs of the same
// dimensions along the same ones (all column reductions or none; neither
// depending on the other; no control edges) become one multi-output
// reduction fusion (kInput, root a tuple of the reduces), read through
// get-tuple-elements (LoopFuser::FuseSiblingReductions): the shared input
// is read once and the reductions' scalar steps interleave, as XLA's
// multi-output fusion does on GPUs.
//
// Result structure: the first fusion into C replaces C by a kLoop fusion (kInput for a reduce)
// named "fusion" (uniquified: "fusion.1", ...) calling a computation named
// "fused_computation" ("fused_computation.1", ...). The fused computation's
// parameter i ("param_i") corresponds to fusion operand i. Fusing P removes
// P's operand slot from the fusion and appends P's operands not already
// operands of the fusion, in P's operand order. Fused instructions keep
// their names (names are unique per computation). P is removed from its
// computation when no user is left; a removed producer fusion's computation
// is removed from the module.
//
// Cycles: producer fusions are single-output and P is only duplicated, never moved,
// while it has other users, so the fusion's operands are P's operands and C's
// other operands, all of which precede C; no cycle can appear. A
// multi-output reduction fusion takes sibling reductions neither of which
// depends on the other.
//
// Control dependencies: C's control edges move to the fusion that replaces
// it; producers with control edges are not fused.
//
// Schedules: a scheduled module keeps a valid schedule. The fusion takes C's
// place in the sequence and removed producers leave it.

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo::cpu {

class CpuInstructionFusion : public HloPass {
 public:
  static constexpr std::string_view kName = "cpu-fusion";
  static constexpr std::string_view kDescription =
      "Fuse elementwise producers into their consumers as kLoop and reduction fusions, dots "
      "into their elementwise epilogues as output fusions, and reductions of a shared input "
      "into multi-output reduction fusions (CPU backend)";

  // The pass has no options.
  static PassOptionSchema OptionSchema() { return PassOptionSchema(); }

  explicit CpuInstructionFusion(const PassOptions& /*options*/) {}
  CpuInstructionFusion() = default;

  std::string_view name() const override { return kName; }

  // Returns whether a fusion was made or grown. Errors come from IR
  // mutations that the rules above should make impossible (they are
  // reported rather than hidden).
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_FUSION_CPU_INSTRUCTION_FUSION_H_
