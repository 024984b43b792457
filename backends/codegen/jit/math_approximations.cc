#include "hmo/codegen/jit/math_approximations.h"

#include <initializer_list>
#include <limits>
#include <string_view>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"

namespace hmo::codegen {
namespace {

enum class MathFunction { kExp, kLog, kTanh };

// The callees replaced, by name: a fact in one table.
struct ReplacedCallee {
  std::string_view name;
  MathFunction function;
};
constexpr ReplacedCallee kReplacedCallees[] = {
    {"llvm.exp.f32", MathFunction::kExp}, {"expf", MathFunction::kExp},
    {"llvm.log.f32", MathFunction::kLog}, {"logf", MathFunction::kLog},
    {"tanhf", MathFunction::kTanh},
};

class Approximations {
 public:
  explicit Approximations(llvm::IRBuilderBase& b) : b_(b) {}

  llvm::Value* Emit(MathFunction function, llvm::Value* x) {
    switch (function) {
      case MathFunction::kExp:
        return Exp(x);
      case MathFunction::kLog:
        return Log(x);
      case MathFunction::kTanh:
        return Tanh(x);
    }
    return nullptr;
  }

 private:
  llvm::Constant* F(double value) { return llvm::ConstantFP::get(b_.getFloatTy(), value); }
  llvm::Constant* I(int32_t value) { return b_.getInt32(static_cast<uint32_t>(value)); }

  // c[0] * x^(n-1) + ... + c[n-1], by Horner's rule.
  llvm::Value* Polynomial(llvm::Value* x, std::initializer_list<double> coefficients) {
    llvm::Value* result = nullptr;
    for (double c : coefficients) {
      result = result == nullptr ? F(c) : b_.CreateFAdd(b_.CreateFMul(result, x), F(c));
    }
    return result;
  }

  llvm::Value* Floor(llvm::Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x); }

  // 2^n for an i32 n in [-126, 127], as the float with that exponent.
  llvm::Value* PowerOfTwo(llvm::Value* n) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(n, I(127)), I(23)), b_.getFloatTy());
  }

  llvm::Value* Exp(llvm::Value* x) {
    // Below -104 every result rounds to +0, above 88.8 to +inf: clamping
    // there keeps n (below) within two normal exponents.
    llvm::Value* clamped = b_.CreateSelect(b_.CreateFCmpOLT(x, F(-104.0)), F(-104.0), x);
    clamped = b_.CreateSelect(b_.CreateFCmpOGT(clamped, F(88.8)), F(88.8), clamped);
    // x = n ln2 + r, |r| <= ln2 / 2; ln2 in two parts (Cody-Waite) so that
    // n * C1 is exact.
    llvm::Value* n = Floor(b_.CreateFAdd(b_.CreateFMul(clamped, F(1.44269504088896341)), F(0.5)));
    llvm::Value* r = b_.CreateFSub(clamped, b_.CreateFMul(n, F(0.693359375)));
    r = b_.CreateFSub(r, b_.CreateFMul(n, F(-2.12194440e-4)));
    llvm::Value* z = b_.CreateFMul(r, r);
    llvm::Value* p = Polynomial(r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                                    4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1});
    llvm::Value* y = b_.CreateFAdd(b_.CreateFAdd(b_.CreateFMul(p, z), r), F(1.0));
    // y * 2^n in two halves: n spans [-150, 128], each half a normal scale,
    // and only the last product rounds into the denormals.
    llvm::Value* ni = b_.CreateFPToSI(n, b_.getInt32Ty());
    llvm::Value* half = b_.CreateAShr(ni, I(1));
    llvm::Value* rest = b_.CreateSub(ni, half);
    llvm::Value* result = b_.CreateFMul(b_.CreateFMul(y, PowerOfTwo(half)), PowerOfTwo(rest));
    return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, result);
  }

  llvm::Value* Log(llvm::Value* x) {
    llvm::Type* i32 = b_.getInt32Ty();
    // Denormals scaled by 2^23 into the normals, the exponent corrected.
    llvm::Value* denormal = b_.CreateFCmpOLT(x, F(1.17549435e-38));
    llvm::Value* scaled = b_.CreateSelect(denormal, b_.CreateFMul(x, F(8388608.0)), x);
    llvm::Value* bits = b_.CreateBitCast(scaled, i32);
    // x = m 2^e, m in [0.5, 1).
    llvm::Value* e = b_.CreateSub(b_.CreateAnd(b_.CreateLShr(bits, I(23)), I(0xff)), I(126));
    e = b_.CreateSub(e, b_.CreateSelect(denormal, I(23), I(0)));
    llvm::Value* m = b_.CreateBitCast(
        b_.CreateOr(b_.CreateAnd(bits, I(static_cast<int32_t>(0x807fffff))), I(0x3f000000)),
        b_.getFloatTy());
    // m in [sqrt(1/2), sqrt(2)) around 1: f = m - 1, small.
    llvm::Value* low = b_.CreateFCmpOLT(m, F(0.707106781186547524));
    e = b_.CreateSub(e, b_.CreateZExt(low, i32));
    llvm::Value* f = b_.CreateFSub(b_.CreateSelect(low, b_.CreateFAdd(m, m), m), F(1.0));
    llvm::Value* z = b_.CreateFMul(f, f);
    llvm::Value* y = b_.CreateFMul(
        b_.CreateFMul(Polynomial(f, {7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                                     -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                                     2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1}),
                      f),
        z);
    llvm::Value* fe = b_.CreateSIToFP(e, b_.getFloatTy());
    y = b_.CreateFAdd(y, b_.CreateFMul(fe, F(-2.12194440e-4)));
    y = b_.CreateFSub(y, b_.CreateFMul(z, F(0.5)));
    llvm::Value* result = b_.CreateFAdd(b_.CreateFAdd(f, y), b_.CreateFMul(fe, F(0.693359375)));
    // The edges: log(+inf) = +inf, log(+-0) = -inf, log(x < 0) = NaN, NaN.
    const double inf = std::numeric_limits<double>::infinity();
    result = b_.CreateSelect(b_.CreateFCmpOEQ(x, F(inf)), x, result);
    result = b_.CreateSelect(b_.CreateFCmpOEQ(x, F(0.0)), F(-inf), result);
    result = b_.CreateSelect(b_.CreateFCmpOLT(x, F(0.0)),
                             F(std::numeric_limits<double>::quiet_NaN()), result);
    return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, result);
  }

  llvm::Value* Tanh(llvm::Value* x) {
    llvm::Value* magnitude = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    // Near 0: x + x^3 P(x^2).
    llvm::Value* z = b_.CreateFMul(x, x);
    llvm::Value* p = Polynomial(z, {-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2,
                                    1.33314422036e-1, -3.33332819422e-1});
    // (With x's sign: -0 + +0 would give +0.)
    llvm::Value* small = b_.CreateBinaryIntrinsic(
        llvm::Intrinsic::copysign, b_.CreateFAdd(b_.CreateFMul(b_.CreateFMul(p, z), x), x), x);
    // Away from 0: 1 - 2 / (e^2|x| + 1), with x's sign (e^2|x| = inf gives 1).
    llvm::Value* e = Exp(b_.CreateFAdd(magnitude, magnitude));
    llvm::Value* large = b_.CreateFSub(F(1.0), b_.CreateFDiv(F(2.0), b_.CreateFAdd(e, F(1.0))));
    large = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
    // NaN compares false and takes the polynomial, which keeps it.
    return b_.CreateSelect(b_.CreateFCmpOGE(magnitude, F(0.625)), large, small);
  }

  llvm::IRBuilderBase& b_;
};

}  // namespace

int64_t InlineMathApproximations(llvm::Module& module) {
  int64_t replaced = 0;
  for (const ReplacedCallee& callee : kReplacedCallees) {
    llvm::Function* function = module.getFunction(callee.name);
    if (function == nullptr || !function->isDeclaration()) continue;
    llvm::FunctionType* type = function->getFunctionType();
    if (!type->getReturnType()->isFloatTy() || type->getNumParams() != 1 ||
        !type->getParamType(0)->isFloatTy()) {
      continue;
    }
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* user : function->users()) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(user);
      if (call != nullptr && call->getCalledFunction() == function) calls.push_back(call);
    }
    for (llvm::CallInst* call : calls) {
      llvm::IRBuilder<> b(call);
      llvm::Value* value = Approximations(b).Emit(callee.function, call->getArgOperand(0));
      call->replaceAllUsesWith(value);
      call->eraseFromParent();
      ++replaced;
    }
  }
  return replaced;
}

}  // namespace hmo::codegen
