// The inline approximations against libm in double precision, rounded: a
// sweep of the f32 range through a compiled, vectorized loop, and the edges
// (infinities, NaN, signed zeros, denormals, the domain of log).

#include "hmo/codegen/jit/math_approximations.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hmo/codegen/jit/cpu_jit.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace hmo::codegen {
namespace {

using Loop = void (*)(float* out, const float* in, int64_t n);

// void loop(float* out, const float* in, i64 n): out[i] = callee(in[i]),
// with `callee` a declaration of `name` (a libm function or an intrinsic).
std::unique_ptr<CpuJit> CompileLoop(const std::string& name, int64_t* replaced) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("math", *context);
  llvm::IRBuilder<> b(*context);
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* f32_ptr = f32->getPointerTo();
  llvm::FunctionCallee callee =
      module->getOrInsertFunction(name, llvm::FunctionType::get(f32, {f32}, false));
  auto* loop =
      llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {f32_ptr, f32_ptr, i64}, false),
                             llvm::Function::ExternalLinkage, "loop", *module);
  auto* entry = llvm::BasicBlock::Create(*context, "entry", loop);
  auto* body = llvm::BasicBlock::Create(*context, "body", loop);
  auto* done = llvm::BasicBlock::Create(*context, "done", loop);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSGT(loop->getArg(2), b.getInt64(0)), body, done);
  b.SetInsertPoint(body);
  llvm::PHINode* i = b.CreatePHI(i64, 2);
  i->addIncoming(b.getInt64(0), entry);
  llvm::Value* x = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, loop->getArg(1), i));
  b.CreateStore(b.CreateCall(callee, {x}), b.CreateInBoundsGEP(f32, loop->getArg(0), i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, body);
  b.CreateCondBr(b.CreateICmpSLT(next, loop->getArg(2)), body, done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();

  // What the JIT will replace, counted on a copy of the same IR.
  {
    llvm::LLVMContext count_context;
    llvm::Module probe("probe", count_context);
    llvm::IRBuilder<> pb(count_context);
    llvm::Type* pf32 = pb.getFloatTy();
    llvm::FunctionCallee probe_callee =
        probe.getOrInsertFunction(name, llvm::FunctionType::get(pf32, {pf32}, false));
    auto* f = llvm::Function::Create(llvm::FunctionType::get(pf32, {pf32}, false),
                                     llvm::Function::ExternalLinkage, "f", probe);
    pb.SetInsertPoint(llvm::BasicBlock::Create(count_context, "entry", f));
    pb.CreateRet(pb.CreateCall(probe_callee, {f->getArg(0)}));
    *replaced = InlineMathApproximations(probe);
  }
  absl::StatusOr<std::unique_ptr<CpuJit>> jit =
      CpuJit::Compile(std::move(context), std::move(module), JitOptions{});
  EXPECT_TRUE(jit.ok()) << jit.status();
  return jit.ok() ? std::move(*jit) : nullptr;
}

std::vector<float> RunLoop(CpuJit& jit, const std::vector<float>& in) {
  absl::StatusOr<void*> address = jit.Lookup("loop");
  EXPECT_TRUE(address.ok()) << address.status();
  std::vector<float> out(in.size());
  reinterpret_cast<Loop> (*address)(out.data(), in.data(), static_cast<int64_t>(in.size()));
  return out;
}

// Distance in representable floats (0 for equal values, NaN vs NaN too).
int64_t UlpDistance(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<int64_t>::max();
  const auto key = [](float f) {
    int32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits < 0 ? -static_cast<int64_t>(bits & 0x7fffffff) : static_cast<int64_t>(bits);
  };
  return std::abs(key(a) - key(b));
}

// Every 4099th bit pattern of the f32 range, both signs: about 2 million
// inputs, the edges added.
std::vector<float> Sweep() {
  std::vector<float> inputs;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 4099) {
    const uint32_t pattern = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &pattern, sizeof f);
    inputs.push_back(f);
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float f : {0.0f,
                  -0.0f,
                  inf,
                  -inf,
                  std::numeric_limits<float>::quiet_NaN(),
                  1.0f,
                  -1.0f,
                  std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::max(),
                  88.7f,
                  88.73f,
                  -87.3f,
                  -103.9f,
                  -104.5f,
                  0.625f,
                  -0.625f,
                  0.6249f,
                  1e-30f,
                  -1e-30f}) {
    inputs.push_back(f);
  }
  return inputs;
}

struct Case {
  std::string name;
  double (*reference)(double);
  int64_t max_ulp;
};

class MathApproximationTest : public ::testing::TestWithParam<Case> {};

TEST_P(MathApproximationTest, MatchesLibmAcrossTheRange) {
  const Case& c = GetParam();
  int64_t replaced = 0;
  std::unique_ptr<CpuJit> jit = CompileLoop(c.name, &replaced);
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ(replaced, 1) << c.name << " is not replaced";
  const std::vector<float> in = Sweep();
  const std::vector<float> out = RunLoop(*jit, in);
  int64_t worst = 0;
  float worst_input = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const float expected = static_cast<float>(c.reference(static_cast<double>(in[i])));
    const int64_t ulp = UlpDistance(out[i], expected);
    if (ulp > worst) {
      worst = ulp;
      worst_input = in[i];
    }
    if (std::isnan(expected) || std::isinf(expected) || expected == 0.0f) {
      ASSERT_EQ(UlpDistance(out[i], expected), 0)
          << c.name << "(" << in[i] << ") = " << out[i] << ", libm: " << expected;
      if (!std::isnan(expected)) {
        EXPECT_EQ(std::signbit(out[i]), std::signbit(expected)) << c.name << "(" << in[i] << ")";
      }
    }
  }
  EXPECT_LE(worst, c.max_ulp) << c.name << " is " << worst << " ulp off at " << worst_input;
}

INSTANTIATE_TEST_SUITE_P(
    Functions, MathApproximationTest,
    ::testing::Values(Case{"expf", [](double x) { return std::exp(x); }, 2},
                      Case{"llvm.exp.f32", [](double x) { return std::exp(x); }, 2},
                      Case{"logf", [](double x) { return std::log(x); }, 2},
                      Case{"llvm.log.f32", [](double x) { return std::log(x); }, 2},
                      Case{"tanhf", [](double x) { return std::tanh(x); }, 2}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.name;
      for (char& ch : name) {
        if (ch == '.') ch = '_';
      }
      return name;
    });

// A function named like a libm one but of another type is left alone.
TEST(MathApproximationTest, LeavesOtherSignaturesAlone) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  llvm::IRBuilder<> b(context);
  llvm::Type* f64 = b.getDoubleTy();
  llvm::FunctionCallee expf =
      module.getOrInsertFunction("expf", llvm::FunctionType::get(f64, {f64}, false));
  auto* f = llvm::Function::Create(llvm::FunctionType::get(f64, {f64}, false),
                                   llvm::Function::ExternalLinkage, "f", module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", f));
  b.CreateRet(b.CreateCall(expf, {f->getArg(0)}));
  EXPECT_EQ(InlineMathApproximations(module), 0);
}

}  // namespace
}  // namespace hmo::codegen
