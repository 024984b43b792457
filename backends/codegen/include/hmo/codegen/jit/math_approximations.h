#ifndef HMO_CODEGEN_JIT_MATH_APPROXIMATIONS_H_
#define HMO_CODEGEN_JIT_MATH_APPROXIMATIONS_H_

// Inline approximations of the f32 math functions generated kernels call,
// as XLA:CPU rewrites its runtime's exp, log and tanh before optimizing: a
// loop whose body calls libm stays scalar, one whose body is arithmetic is
// widened by the loop vectorizer.
//
// Replaced (f32 scalars only; f64 keeps libm):
//   exp   llvm.exp.f32, expf   Cody-Waite range reduction by ln 2, Cephes'
//                              degree-5 polynomial, 2^n applied in two
//                              halves (gradual underflow, overflow to inf)
//   log   llvm.log.f32, logf   Cephes' mantissa polynomial around 1 (denormal
//                              inputs normalized first)
//   tanh  tanhf                Cephes: an odd polynomial below |x| = 0.625,
//                              1 - 2 / (exp(2|x|) + 1) above it
// Every result is within 2 ulp of the correctly rounded one, denormal
// results included (math_approximations_test.cc sweeps the f32 range and
// finds at most 1); infinities,
// NaN, signed zeros and the domain edges (log of 0 and of negatives) are
// what libm returns.

#include <cstdint>

#include "llvm/IR/Module.h"

namespace hmo::codegen {

// Replaces, in every function of `module`, each call of the functions above
// by its inline approximation; the declarations stay (unused). Returns the
// number of calls replaced.
int64_t InlineMathApproximations(llvm::Module& module);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_JIT_MATH_APPROXIMATIONS_H_
