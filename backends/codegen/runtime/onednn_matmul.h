#ifndef HMO_CODEGEN_RUNTIME_ONEDNN_MATMUL_H_
#define HMO_CODEGEN_RUNTIME_ONEDNN_MATMUL_H_

// Matrix products of narrow types through oneDNN's matmul primitive
// (XLA:CPU's library for its oneDNN contractions): bf16 operands multiplied
// and accumulated in f32, s8 operands in s32, where the CPU has the
// instructions (AVX512-BF16, VNNI, AMX) at their rate, without widening the
// operands first.

#include <cblas.h>

#include <cstdint>

namespace hmo::codegen {

// The operand and result types of a product.
enum class OneDnnProduct {
  kBf16ToF32,  // bf16 operands (their bits), f32 result
  kS8ToS32,    // s8 operands, s32 result
};

// C (rows x columns, row-major, leading dimension ldc) = op(A) x op(B)
// (overwritten), A and B row-major with leading dimensions lda and ldb
// (op = transpose when the flag says so), on the calling thread: oneDNN's
// own threads are kept at one there, the intra-op pool runs the slices
// (parallel_gemm.h). The primitive for a shape comes from oneDNN's
// primitive cache after its first use. Returns false when oneDNN refused
// the product (C untouched); the caller computes it another way.
bool OneDnnMatmul(OneDnnProduct product, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                  int64_t rows, int64_t columns, int64_t k, const void* a, int64_t lda,
                  const void* b, int64_t ldb, void* c, int64_t ldc);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_RUNTIME_ONEDNN_MATMUL_H_
