#ifndef HMO_REWRITES_FUSION_EXPANSION_H_
#define HMO_REWRITES_FUSION_EXPANSION_H_

// ExpandFusions: replaces fusion instructions by the instructions of their
// fused computations, in the fusion's computation (parameters become the
// fusion's operands, the fused root takes the fusion's uses). Nested fusions
// that come out of a body are expanded too when `expand` says so.
//
// Why: a backend whose fused emitters do not cover a fusion (an XLA-optimized
// module's reduction, output or multi-output fusions with dot, reduce,
// convolution, scatter, ... inside) can still run it as one kernel per fused
// instruction. The fusion's internal values become ordinary values, so the
// buffer assignment made afterwards gives them buffers in the plan (what
// runs is what the plan says).
//
// A scheduled module stays scheduled: the expanded instructions take the
// fusion's place in its sequence, in post order.

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// Expands every fusion of a non-fusion computation for which `expand`
// returns true. Returns how many fusions were expanded; `added`, when given,
// receives the instructions the expansion added that are in the module at
// the end.
absl::StatusOr<int64_t> ExpandFusions(
    HloModule& module, const std::function<bool(const HloInstruction& fusion)>& expand,
    std::vector<HloInstruction*>* added = nullptr);

}  // namespace hmo

#endif  // HMO_REWRITES_FUSION_EXPANSION_H_
