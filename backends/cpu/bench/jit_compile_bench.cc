// CpuJit::Compile on its own (no HLO, no codegen): how compile time and the
// reservation scale with module size and optimization level.
//
// The module is N independent kernels, each an f32 loop
//   out[i] = a[i] * b[i] + k   (k differs per kernel)
// built with IRBuilder, which is the shape of what codegen emits for unfused
// elementwise instructions. Reported per run:
//   us_per_kernel   compile (verify + optimize + codegen + link) time / N
//   code_bytes      bytes of the code region used
//   reserved_bytes  the one reservation (page-rounded code + rodata + rwdata)

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "jit/cpu_jit.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace hmo::cpu {
namespace {

void EmitElementwiseKernel(llvm::Module& module, int index) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* f32_ptr = f32->getPointerTo();
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {f32_ptr, f32_ptr, f32_ptr, i64}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                    "kernel_" + std::to_string(index), module);
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(ctx, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  llvm::Value* out = fn->getArg(0);
  llvm::Value* a = fn->getArg(1);
  llvm::Value* c = fn->getArg(2);
  llvm::Value* n = fn->getArg(3);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSGT(n, b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(i64, 2, "i");
  i->addIncoming(b.getInt64(0), entry);
  llvm::Value* x = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, a, i));
  llvm::Value* y = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, c, i));
  llvm::Value* r = b.CreateFAdd(b.CreateFMul(x, y), llvm::ConstantFP::get(f32, 0.5 * index));
  b.CreateStore(r, b.CreateInBoundsGEP(f32, out, i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, n), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
}

void BM_CompileElementwiseKernels(benchmark::State& state) {
  const int kernels = static_cast<int>(state.range(0));
  JitOptions options;
  options.opt_level = static_cast<int>(state.range(1));
  JitSectionSizes sizes;
  for (auto _ : state) {
    state.PauseTiming();
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>("bench", *context);
    for (int k = 0; k < kernels; ++k) EmitElementwiseKernel(*module, k);
    state.ResumeTiming();
    auto jit = CpuJit::Compile(std::move(context), std::move(module), options);
    if (!jit.ok()) {
      state.SkipWithError(std::string(jit.status().message()).c_str());
      return;
    }
    sizes = (*jit)->section_sizes();
    state.PauseTiming();
    jit->reset();  // Unmapping is not compile time.
    state.ResumeTiming();
  }
  state.counters["us_per_kernel"] = benchmark::Counter(
      static_cast<double>(kernels) * 1e-6,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["code_bytes"] = static_cast<double>(sizes.code_bytes);
  state.counters["reserved_bytes"] = static_cast<double>(sizes.reserved_bytes);
}

BENCHMARK(BM_CompileElementwiseKernels)
    ->ArgNames({"kernels", "opt"})
    ->ArgsProduct({{16, 128, 512}, {0, 2}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hmo::cpu

BENCHMARK_MAIN();
