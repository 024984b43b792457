#ifndef HMO_BACKENDS_GPU_CODEGEN_LIBDEVICE_MATH_H_
#define HMO_BACKENDS_GPU_CODEGEN_LIBDEVICE_MATH_H_

// The CPU elemental emitter expresses math as LLVM intrinsics
// (llvm.exp.f32, ...) and libm calls (tanhf, ...). The NVPTX back end
// selects neither: on a GPU these functions come from libdevice, NVIDIA's
// bitcode math library (__nv_expf, ...). RedirectMathToLibdevice replaces
// every such declaration by the libdevice function of the same signature.
//
// The table (kLibdeviceMath in the .cc), f32 / f64 names:
//   intrinsics  llvm.exp -> __nv_expf / __nv_exp, llvm.exp2 -> __nv_exp2f,
//               llvm.log, llvm.log2, llvm.log10, llvm.sin, llvm.cos,
//               llvm.pow, llvm.round (-> __nv_round[f]) likewise;
//   libm        expm1f/expm1, log1pf/log1p, cbrtf/cbrt, tanhf/tanh,
//               tanf/tan, erff/erf, atan2f/atan2, expf/exp, logf/log,
//               sinf/sin, cosf/cos, powf/pow -> __nv_<same name>.
// Intrinsics the NVPTX back end selects itself (fabs, sqrt, floor, ceil,
// rint, copysign, minnum/maxnum, ctpop, ctlz, fptosi.sat, memcpy, ...) are
// left alone.

#include <string>
#include <vector>

#include "llvm/IR/Module.h"

namespace hmo::gpu {

// Rewrites the calls in `module`; returns the libdevice names now declared
// (empty when the module uses no math function).
std::vector<std::string> RedirectMathToLibdevice(llvm::Module& module);

// The libdevice name for a libm function name or an intrinsic's base name
// ("llvm.exp") at `bits` (32 or 64); empty when there is none.
std::string LibdeviceNameFor(const std::string& name, int bits);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_CODEGEN_LIBDEVICE_MATH_H_
