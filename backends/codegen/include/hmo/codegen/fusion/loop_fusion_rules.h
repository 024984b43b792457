#ifndef HMO_CODEGEN_FUSION_LOOP_FUSION_RULES_H_
#define HMO_CODEGEN_FUSION_LOOP_FUSION_RULES_H_

// The per-instruction rules of the loop fuser (loop_fuser.h; the CPU
// backend's cpu-fusion pass describes how they combine): which consumers can host a loop fusion,
// which producers can be computed inside one, and which are too costly to duplicate.

#include "hmo/ir/hlo_instruction.h"

namespace hmo::codegen {

// Whether computing `instruction` once per use would be costly enough that
// it should not be duplicated into several fusions. XLA's IsExpensive list:
// divide, remainder, sqrt, rsqrt, cbrt, exp, expm1, log, log1p, logistic,
// power, atan2, tanh, erf, map; cos/sin/tan/abs only on complex values; any
// instruction that is not elementwise or a cheap data movement (dot, reduce,
// convolution, sort, calls, ...); a fusion holding any expensive instruction.
bool IsExpensiveForFusion(const HloInstruction& instruction);

// Which reductions host their producers (IsReductionHost).
enum class ReductionHosts {
  // Reductions of inputs below kMaxInnerReductionBytes (cpu-fusion).
  kBelowPartSize,
  // Every reduction: what an XLA-optimized module fused into one reduction
  // fusion stays one (the regrouping of expanded fusions).
  kAnySize,
  // None: a target whose kernels emit loop fusions only.
  kNone,
};

// Whether `consumer` may host a loop fusion: a non-fusion elementwise
// instruction (array-shaped) or a kLoop fusion; or a reduction
// (IsReductionHost), whose fused producers are computed inside its loop.
bool CanHostLoopFusion(const HloInstruction& consumer,
                       ReductionHosts hosts = ReductionHosts::kBelowPartSize);

// Whether `consumer` is a reduce of one array-shaped input, or a kInput
// fusion rooted at one, that hosts producers: the host of a reduction fusion
// (kInput, as XLA's reduction fusions), which the backend emits with the
// fused producers computed element by element inside the reduction loop.
// With kBelowPartSize, only reductions of inputs below
// kMaxInnerReductionBytes host: a larger producer keeps its own
// vectorized, partitioned loop (a row reduction's loop is scalar, a column
// reduction runs whole on one thread).
bool IsReductionHost(const HloInstruction& consumer,
                     ReductionHosts hosts = ReductionHosts::kBelowPartSize);

// Whether `producer`, judged on its own (opcode, shapes, layouts), can be
// computed element by element inside a kLoop fusion: the producer kinds
// listed in cpu_instruction_fusion.h. Constants are accepted here when they
// are effectively scalar; the "only into an existing fusion" condition is the
// caller's. Side effects, control edges and users are the caller's too.
bool IsLoopFusibleProducerKind(const HloInstruction& producer);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_FUSION_LOOP_FUSION_RULES_H_
