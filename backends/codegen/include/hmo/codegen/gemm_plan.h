#ifndef HMO_CODEGEN_GEMM_PLAN_H_
#define HMO_CODEGEN_GEMM_PLAN_H_

// GemmPlanFor: when a dot is, in memory, a (batched) product of dense
// row-major matrices, and the GEMM parameters that compute it. The CPU
// backend calls its runtime GEMM with them (dot_emitter.cc); a GPU backend
// can map the same plan to a library GEMM (cuBLAS).
//
// A plan exists exactly when all of these hold (any element types; the
// caller checks those):
//  - the output is row-major (minor_to_major = {rank-1, ..., 0});
//  - the lhs's dimensions, from most major to most minor in memory, are its
//    batch dimensions (in lhs_batch_dimensions order) followed by either
//    [free dims increasing, contracting dims in lhs_contracting_dimensions
//    order] (transpose_lhs = false) or [contracting dims, free dims]
//    (transpose_lhs = true);
//  - likewise the rhs: batch dims (rhs_batch_dimensions order), then
//    [contracting dims in rhs_contracting_dimensions order, free dims
//    increasing] (transpose_rhs = false) or [free dims, contracting dims]
//    (transpose_rhs = true).
// Free dimensions are those neither batch nor contracting. Dimensions of
// size 1 are not special: a layout that differs only in where a size-1
// dimension sits gives no plan.
//
// Meaning, with all matrices dense and row-major, sizes in elements:
//   for b in [0, batch):  C_b = op(A_b) x op(B_b)
//   C_b = output + b*m*n, an m x n matrix, leading dimension n;
//   A_b = lhs + b*m*k: m x k with leading dimension k (transpose_lhs false),
//         or k x m with leading dimension m and op = transpose (true);
//   B_b = rhs + b*k*n: k x n with leading dimension n (transpose_rhs false),
//         or n x k with leading dimension k and op = transpose (true).
// m is the product of the lhs free dimensions, n of the rhs free dimensions,
// k of the (lhs) contracting dimensions, batch of the batch dimensions (1
// when there are none); the output's row index is the lhs free dims
// linearized (row-major), its column index the rhs free dims'. For a
// column-major library (cuBLAS) compute C_b^T = op(B_b)^T x op(A_b)^T: the
// same buffers with (m, n) swapped, B first, the same transpose flags and
// leading dimensions, batch strides m*k, k*n and m*n.

#include <cstdint>
#include <optional>
#include <vector>

#include "hmo/ir/dot_dimensions.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo::codegen {

struct GemmPlan {
  int64_t batch = 1;
  int64_t m = 1;
  int64_t n = 1;
  int64_t k = 1;
  bool transpose_lhs = false;
  bool transpose_rhs = false;
};

// batch, m, n and k of `dot` as defined above, whatever its layouts (the
// transpose flags stay false): the sizes GemmPlanFor puts in its plan.
GemmPlan GemmSizes(const HloInstruction& dot);

// The plan for `dot` (a kDot instruction with dot dimension numbers), or
// nullopt when its layouts do not allow one (see above).
std::optional<GemmPlan> GemmPlanFor(const HloInstruction& dot);

// The element types a runtime GEMM multiplies in (runtime_functions.h):
// operands and result all f32 or all f64, bf16 or f16 operands with an f32
// result (accumulated in f32), or s8 operands with an s32 result.
enum class GemmElementTypes { kF32, kF64, kBf16ToF32, kF16ToF32, kS8ToS32 };

// Which of those `dot`'s element types are, or nullopt when no runtime GEMM
// takes them (a generated loop computes it, or dot-canonicalization first
// rewrites it into one of these).
std::optional<GemmElementTypes> RuntimeGemmElementTypes(const HloInstruction& dot);

// The runtime function computing a GEMM of `types` (runtime_functions.h):
// __hmo_cpu_gemm_*, or with `with_epilogue` __hmo_cpu_gemm_epilogue_*.
const char* RuntimeGemmFunction(GemmElementTypes types, bool with_epilogue);

// Operand `operand` (0: lhs, 1: rhs) of `dot` on its own: the transpose flag
// its layout gives the GEMM, or nullopt when its layout allows none (the
// operand conditions above). GemmPlanFor holds these for both operands and
// the row-major output.
std::optional<bool> GemmOperandTranspose(const HloInstruction& dot, int64_t operand);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_GEMM_PLAN_H_
