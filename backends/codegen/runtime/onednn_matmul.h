#ifndef HMO_CODEGEN_RUNTIME_ONEDNN_MATMUL_H_
#define HMO_CODEGEN_RUNTIME_ONEDNN_MATMUL_H_

// bf16 matrix products through oneDNN's matmul primitive (XLA:CPU's library
// for its oneDNN contractions): bf16 operands multiplied and accumulated in
// f32, where the CPU has the instructions (AVX512-BF16, AMX) at their rate,
// without widening the operands first.

#include <cblas.h>

#include <cstdint>

namespace hmo::codegen {

// C (rows x columns, f32, row-major, leading dimension ldc) = op(A) x op(B)
// (overwritten), A and B bf16 bits, row-major with leading dimensions lda
// and ldb (op = transpose when the flag says so), on the calling thread:
// oneDNN's own threads are kept at one there, the intra-op pool runs the
// slices (parallel_gemm.h). The primitive for a shape comes from oneDNN's
// primitive cache after its first use. Returns false when oneDNN refused
// the product (C untouched); the caller computes it another way.
bool OneDnnMatmulBf16F32(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows,
                         int64_t columns, int64_t k, const uint16_t* a, int64_t lda,
                         const uint16_t* b, int64_t ldb, float* c, int64_t ldc);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_RUNTIME_ONEDNN_MATMUL_H_
