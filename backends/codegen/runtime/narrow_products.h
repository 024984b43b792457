#ifndef HMO_CODEGEN_RUNTIME_NARROW_PRODUCTS_H_
#define HMO_CODEGEN_RUNTIME_NARROW_PRODUCTS_H_

// Matrix products of narrow operands as ParallelGemm products
// (parallel_gemm.h): oneDNN where it takes the product, another exact way
// where it refuses one; f16 operands (no f16 GEMM on most x86 hosts) widened
// block by block into bounded f32 scratch for the BLAS. The dot GEMMs (gemm.cc) and the
// convolutions (conv2d.cc) both multiply through these.

#include <cblas.h>

#include <cstdint>

namespace hmo::codegen {

// C (rows x columns, f32) = op(A) x op(B), A and B bf16 (their bits): the
// exact products of the bf16 values accumulated in f32 (oneDNN; or, where
// oneDNN refuses one, blocks of the operands widened into bounded scratch
// and multiplied by the BLAS, as F16Product).
void Bf16Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
                 int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb,
                 float* c, int64_t ldc);

// C (rows x columns, f32) = op(A) x op(B), A and B f16 (their bits): the
// exact products of the f16 values accumulated in f32, as XLA:CPU's f32 dot
// between converts computes them. Blocks of the operands are widened (F16C
// where the host has it) into per-thread scratch of at most
// kMaxScratchElements floats each and multiplied by the BLAS.
void F16Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
                int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float* c,
                int64_t ldc);

// `count` f32 values rounded to f16 (nearest even; F16C where the host has
// it), as half_float_bits::F32ToF16 rounds each.
void RoundRowToF16(const float* from, int64_t count, uint16_t* to);

// `count` f32 values rounded to bf16 (nearest even; AVX2 where the host has
// it), as half_float_bits::F32ToBf16 rounds each.
void RoundRowToBf16(const float* from, int64_t count, uint16_t* to);

// C (rows x columns, s32) = op(A) x op(B), A and B s8, accumulated in s32
// (oneDNN, or a loop); exact while the sums fit s32.
void S8Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
               int64_t k, const int8_t* a, int64_t lda, const int8_t* b, int64_t ldb, int32_t* c,
               int64_t ldc);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_RUNTIME_NARROW_PRODUCTS_H_
