#ifndef HMO_BACKENDS_CPU_SIMPLIFICATION_WIDENED_DOT_OPERANDS_H_
#define HMO_BACKENDS_CPU_SIMPLIFICATION_WIDENED_DOT_OPERANDS_H_

// XLA:CPU's optimized modules compute bf16 and f16 dots in f32: each operand
// is a fusion that ends by widening a 16-bit value (`convert` to f32, then
// only bitcasts, copies, reshapes or transposes), and the f32 copy is a
// buffer read by the dot alone. The runtime's bf16 and f16 GEMMs
// (gemm_plan.h) multiply the 16-bit values themselves with the same exact
// products accumulated in f32, so the operands need not be widened in
// memory.
//
// NarrowWidenedDotOperands rewrites, in every non-fusion computation, the
// largest set of such widening producers that are read only as operands of
// f32 dots (alone, or the product of an output fusion whose dot reads the
// fusion's parameters only) whose other operand is in the set too, of the
// same 16-bit type (an activation read by its forward and its weight-
// gradient dot, say): each producer fusion stops before its final `convert`
// (its data movement runs on the 16-bit values) or, when nothing is left
// but the convert, its readers read the 16-bit value directly; the dots
// (and the output fusions' parameters) take the 16-bit type. The dots' f32
// results and everything after them are unchanged. Returns the number of
// producers narrowed.
//
// Runs on the CPU backend's preparation of a module (its memory model), so
// the plan the pipeline measures is the plan the executable allocates.

#include <cstdint>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::cpu {

absl::StatusOr<int64_t> NarrowWidenedDotOperands(HloModule& module);

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_SIMPLIFICATION_WIDENED_DOT_OPERANDS_H_
