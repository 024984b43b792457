// CpuJit::Compile on its own (no HLO, no codegen): how compile time and the
// reservation scale with module size and optimization level.
//
// The module is N independent kernels, each an f32 loop
//   out[i] = a[i] * b[i] + k   (k differs per kernel)
// built with IRBuilder, the shape of what codegen emits for unfused
// elementwise instructions. For each N and level it prints
//   ms             median CpuJit::Compile time (verify, optimize, codegen, link)
//   us/kernel      that time per kernel
//   vs_codegen     ratio against object-file generation alone for the same
//                  module and level on the same host target machine. At O0
//                  (no IR pipeline) it is the JIT's own overhead — verifier,
//                  session, symbol tables, RuntimeDyld linking — with goal
//                  <= 1.3; at O2 it also contains the IR pipeline, which
//                  dominates (the loop vectorizer with runtime alias checks)
//   code/reserved  bytes of code used, and the one reservation's size
// Times are medians of repeated runs; the module is rebuilt outside the timed
// region each time since Compile consumes it. O2 runs use fewer and smaller
// modules: it costs tens of milliseconds per kernel.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hmo/codegen/jit/cpu_jit.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

namespace hmo::cpu {
namespace {

struct BuiltModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
};

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
  llvm::Value* n = fn->getArg(3);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSGT(n, b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(i64, 2, "i");
  i->addIncoming(b.getInt64(0), entry);
  llvm::Value* x = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, fn->getArg(1), i));
  llvm::Value* y = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, fn->getArg(2), i));
  llvm::Value* r = b.CreateFAdd(b.CreateFMul(x, y), llvm::ConstantFP::get(f32, 0.5 * index));
  b.CreateStore(r, b.CreateInBoundsGEP(f32, fn->getArg(0), i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, n), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
}

BuiltModule ElementwiseModule(int kernels) {
  BuiltModule built;
  built.context = std::make_unique<llvm::LLVMContext>();
  built.module = std::make_unique<llvm::Module>("bench", *built.context);
  for (int k = 0; k < kernels; ++k) EmitElementwiseKernel(*built.module, k);
  return built;
}

// Median seconds of `run`, each repetition given a freshly built module.
double MedianSeconds(int repetitions, int kernels,
                     const std::function<void(BuiltModule)>& run) {
  std::vector<double> times;
  for (int r = 0; r < repetitions + 1; ++r) {
    BuiltModule built = ElementwiseModule(kernels);
    const auto start = std::chrono::steady_clock::now();
    run(std::move(built));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r > 0) times.push_back(seconds);  // The first run warms up.
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

llvm::CodeGenOpt::Level CodeGenLevel(int opt_level) {
  return opt_level == 0 ? llvm::CodeGenOpt::None : llvm::CodeGenOpt::Default;
}

// Baseline: object-file generation alone. At O0 the JIT runs no IR passes
// worth timing, so this isolates its linking overhead; at O2 the JIT also
// optimizes the IR, so the ratio includes the IR pipeline.
double CodegenOnlySeconds(int kernels, int opt_level, int repetitions) {
  return MedianSeconds(repetitions, kernels, [&](BuiltModule built) {
    auto builder = llvm::cantFail(llvm::orc::JITTargetMachineBuilder::detectHost());
    builder.setCodeGenOptLevel(CodeGenLevel(opt_level));
    builder.setRelocationModel(llvm::Reloc::PIC_);
    auto machine = llvm::cantFail(builder.createTargetMachine());
    built.module->setDataLayout(machine->createDataLayout());
    llvm::orc::SimpleCompiler compiler(*machine);
    auto object = llvm::cantFail(compiler(*built.module));
    if (object->getBufferSize() == 0) std::abort();
    built.module.reset();
  });
}

int Main() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::printf("%8s %4s %10s %10s %11s %11s %14s\n", "kernels", "opt", "ms", "us/kernel",
              "vs_codegen", "code", "reserved");
  for (int kernels : {16, 128, 512}) {
    for (int opt_level : {0, 2}) {
      if (opt_level > 0 && kernels > 128) continue;
      const int repetitions = opt_level > 0 || kernels >= 512 ? 3 : 7;
      codegen::JitSectionSizes sizes;
      bool failed = false;
      const double jit_seconds = MedianSeconds(repetitions, kernels, [&](BuiltModule built) {
        codegen::JitOptions options;
        options.opt_level = opt_level;
        auto jit =
            codegen::CpuJit::Compile(std::move(built.context), std::move(built.module), options);
        if (!jit.ok()) {
          std::fprintf(stderr, "compile failed: %s\n", std::string(jit.status().message()).c_str());
          failed = true;
          return;
        }
        sizes = (*jit)->section_sizes();
      });
      if (failed) return 1;
      const double codegen_seconds = CodegenOnlySeconds(kernels, opt_level, repetitions);
      std::printf("%8d %4d %10.2f %10.1f %11.2f %11lld %14lld\n", kernels, opt_level,
                  jit_seconds * 1e3, jit_seconds * 1e6 / kernels, jit_seconds / codegen_seconds,
                  static_cast<long long>(sizes.code_bytes),
                  static_cast<long long>(sizes.reserved_bytes));
    }
  }
  return 0;
}

}  // namespace
}  // namespace hmo::cpu

int main() { return hmo::cpu::Main(); }
