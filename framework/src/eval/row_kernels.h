#ifndef HMO_EVAL_ROW_KERNELS_H_
#define HMO_EVAL_ROW_KERNELS_H_

// The innermost loops of dot and convolution: row += x * weights and
// row += values * weights over contiguous arrays. They are written in fixed
// chunks of 8 on non-aliasing pointers so that the compiler turns each chunk
// into SIMD instructions even at -O2 (where loops of unknown length and
// possibly aliasing pointers stay scalar); summation order per element is
// unchanged, so results are the same as the plain loop.

#include <cstdint>

namespace hmo::eval_internal {

// row[i] += x * weights[i] for i in [0, n).
template <typename Acc>
inline void AccumulateScaledRow(Acc* __restrict row, const Acc* __restrict weights, Acc x,
                                int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) row[i + j] += x * weights[i + j];
  }
  for (; i < n; ++i) row[i] += x * weights[i];
}

// row[i] += values[i] * weights[i] for i in [0, n).
template <typename Acc>
inline void AccumulateProductRow(Acc* __restrict row, const Acc* __restrict values,
                                 const Acc* __restrict weights, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) row[i + j] += values[i + j] * weights[i + j];
  }
  for (; i < n; ++i) row[i] += values[i] * weights[i];
}

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_ROW_KERNELS_H_
