// The shape of the emitted LLVM IR: the ABI (entry function, one kernel per
// computing instruction), in-place dynamic-update-slice, and an elementwise
// fusion over large f32 arrays that LLVM's O2 pipeline vectorizes.

#include <memory>
#include <string>

#include "cpu/codegen/module_emitter.h"
#include "gtest/gtest.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/text/hlo_parser.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace hmo::cpu {
namespace {

struct Compiled {
  std::unique_ptr<HloModule> hlo;
  std::unique_ptr<BufferAssignment> assignment;
  EmittedModule emitted;
};

// Parses a scheduled module, assigns buffers as the CPU compiler does and
// emits it.
Compiled Emit(std::string_view text, const CodegenOptions& options = CodegenOptions{}) {
  Compiled c;
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  c.hlo = std::move(*module);
  EXPECT_TRUE(c.hlo->has_schedule());
  auto assignment = BufferAssigner::Run(c.hlo.get(), c.hlo->schedule(), ByteSizeOfValue(8),
                                        [](int64_t) { return int64_t{64}; }, BufferAssigner::Options{});
  EXPECT_TRUE(assignment.ok()) << assignment.status();
  c.assignment = std::move(*assignment);
  auto emitted = EmitModule(*c.hlo, *c.assignment, options);
  EXPECT_TRUE(emitted.ok()) << emitted.status();
  c.emitted = std::move(*emitted);
  return c;
}

std::string Print(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return stream.str();
}

std::string PrintFunction(const llvm::Module& module, std::string_view name) {
  const llvm::Function* f = module.getFunction(name);
  if (f == nullptr) return "";
  std::string text;
  llvm::raw_string_ostream stream(text);
  f->print(stream);
  return stream.str();
}

TEST(EmittedIrTest, EntryFunctionAndOneKernelPerComputingInstruction) {
  constexpr const char* kHlo = R"(
HloModule m, is_scheduled=true
ENTRY e {
  x = f32[8] parameter(0)
  n = f32[8] negate(x)
  e.1 = f32[8] exponential(n)
  b = s32[8] bitcast-convert(e.1)
  ROOT t = (f32[8], s32[8]) tuple(n, b)
})";
  Compiled c = Emit(kHlo);
  ASSERT_NE(c.emitted.module, nullptr);
  EXPECT_EQ(c.emitted.entry_function_name, "hmo_entry");
  EXPECT_EQ(c.emitted.kernel_count, 3);
  const llvm::Function* entry = c.emitted.module->getFunction("hmo_entry");
  ASSERT_NE(entry, nullptr);
  EXPECT_FALSE(entry->hasLocalLinkage());
  ASSERT_EQ(entry->arg_size(), 1u);
  EXPECT_TRUE(entry->getReturnType()->isVoidTy());
  EXPECT_NE(c.emitted.module->getFunction("n"), nullptr);
  EXPECT_NE(c.emitted.module->getFunction("e.1"), nullptr);
  EXPECT_NE(c.emitted.module->getFunction("b"), nullptr);
}

TEST(EmittedIrTest, KernelNamedLikeLibmFunctionDoesNotCaptureTheCall) {
  // A kernel called "tanh" must not be what the tanh libm call resolves to.
  constexpr const char* kHlo = R"(
HloModule m, is_scheduled=true
ENTRY e {
  x = f32[8] parameter(0)
  tanhf = f32[8] negate(x)
  expf = f32[8] exponential(tanhf)
  ROOT y = f32[8] tanh(expf)
})";
  Compiled c = Emit(kHlo);
  ASSERT_NE(c.emitted.module, nullptr);
  const llvm::Function* libm = c.emitted.module->getFunction("tanhf");
  ASSERT_NE(libm, nullptr);
  EXPECT_TRUE(libm->isDeclaration());
  // exp is an intrinsic the backend lowers to a call to expf: no local
  // function may be called that either.
  EXPECT_EQ(c.emitted.module->getFunction("expf"), nullptr);
  EXPECT_NE(c.emitted.module->getFunction("expf.1"), nullptr);
}

TEST(EmittedIrTest, InPlaceDynamicUpdateSliceOnlyVisitsTheUpdate) {
  // The DUS output reuses x's buffer (x is dead after it): the kernel loops
  // over the 2 update elements, not the 1000 of the output.
  constexpr const char* kHlo = R"(
HloModule m, is_scheduled=true
ENTRY e {
  p = f32[1000] parameter(0)
  x = f32[1000] negate(p)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[1000] dynamic-update-slice(x, u, i)
})";
  Compiled c = Emit(kHlo);
  ASSERT_NE(c.emitted.module, nullptr);
  const auto out = c.assignment->GetAllSlices(c.hlo->entry_computation()->root_instruction(), {});
  const auto in = c.assignment->GetAllSlices(c.hlo->entry_computation()->root_instruction()->operand(0), {});
  ASSERT_EQ(out, in) << "buffer assignment did not share the buffer; the test needs it to";
  const std::string kernel = PrintFunction(*c.emitted.module, "d");
  EXPECT_NE(kernel.find("icmp slt i64 %dus.d0.iv, 2"), std::string::npos) << kernel;
  EXPECT_EQ(kernel.find("1000"), std::string::npos) << kernel;
}

// Alias scopes of an in-place kernel (hmo/codegen/alias_scopes.h): the
// fusion updates p0's buffer in place, so its loads of p0 may alias the
// output and carry no !noalias, while its loads of the other operand u
// (another buffer) are marked as not aliasing the output's scope, which the
// stores carry.
TEST(EmittedIrTest, InPlaceKernelMarksOnlyTheOtherOperandsAsNotAliasingItsOutput) {
  constexpr const char* kHlo = R"(
HloModule m, is_scheduled=true

fused {
  p0 = f32[64,32] parameter(0)
  p1 = f32[1,32] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ds = f32[1,32] dynamic-slice(p0, i, z), dynamic_slice_sizes={1,32}
  a = f32[1,32] add(ds, p1)
  ROOT d = f32[64,32] dynamic-update-slice(p0, a, i, z)
}

ENTRY e {
  p = f32[64,32] parameter(0)
  x = f32[64,32] negate(p)
  u = f32[1,32] parameter(1)
  i = s32[] parameter(2)
  ROOT f = f32[64,32] fusion(x, u, i), kind=kLoop, calls=fused
})";
  Compiled c = Emit(kHlo);
  ASSERT_NE(c.emitted.module, nullptr);
  const HloInstruction* root = c.hlo->entry_computation()->root_instruction();
  ASSERT_EQ(c.assignment->GetAllSlices(root, {}), c.assignment->GetAllSlices(root->operand(0), {}))
      << "buffer assignment did not update x in place; the test needs it to";
  const std::string kernel = PrintFunction(*c.emitted.module, "f");
  int loads_marked = 0, loads_unmarked = 0, stores_scoped = 0, stores = 0;
  size_t start = 0;
  while (start < kernel.size()) {
    size_t end = kernel.find('\n', start);
    if (end == std::string::npos) end = kernel.size();
    const std::string line = kernel.substr(start, end - start);
    start = end + 1;
    if (line.find("load float") != std::string::npos) {
      ++(line.find("!noalias") != std::string::npos ? loads_marked : loads_unmarked);
    } else if (line.find("store float") != std::string::npos) {
      ++stores;
      if (line.find("!alias.scope") != std::string::npos) ++stores_scoped;
    }
  }
  EXPECT_EQ(loads_marked, 1) << kernel;    // u
  EXPECT_EQ(loads_unmarked, 1) << kernel;  // p0, the buffer written
  EXPECT_GT(stores, 0) << kernel;
  EXPECT_EQ(stores_scoped, stores) << kernel;
}

// Runs LLVM's O2 pipeline for the host CPU.
void OptimizeForHost(llvm::Module& module) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string error;
  const std::string triple = llvm::sys::getProcessTriple();
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  ASSERT_NE(target, nullptr) << error;
  llvm::StringMap<bool> features;
  llvm::sys::getHostCPUFeatures(features);
  std::string feature_string;
  for (const auto& f : features) feature_string += (f.getValue() ? "+" : "-") + f.getKey().str() + ",";
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), feature_string, llvm::TargetOptions(), {}));
  module.setDataLayout(machine->createDataLayout());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine.get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  passes.run(module, mam);
}

TEST(EmittedIrTest, ElementwiseFusionIsOneFlatLoopThatVectorizes) {
  constexpr const char* kHlo = R"(
HloModule m, is_scheduled=true
fused {
  a = f32[256,1024] parameter(0)
  b = f32[256,1024] parameter(1)
  c = f32[] parameter(2)
  cb = f32[256,1024] broadcast(c), dimensions={}
  m = f32[256,1024] multiply(a, cb)
  ROOT s = f32[256,1024] add(m, b)
}
ENTRY e {
  x = f32[256,1024] parameter(0)
  y = f32[256,1024] parameter(1)
  z = f32[] parameter(2)
  ROOT f = f32[256,1024] fusion(x, y, z), kind=kLoop, calls=fused
})";
  Compiled c = Emit(kHlo);
  ASSERT_NE(c.emitted.module, nullptr);
  const std::string kernel = PrintFunction(*c.emitted.module, "f");
  // One loop over the part's share of the 262144 elements (1 MiB: the
  // kernel is a part, kernel(table, part, parts)), no call per element.
  EXPECT_NE(kernel.find("mul i64 262144, %0"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("icmp slt i64 %elements.iv, "), std::string::npos) << kernel;
  EXPECT_EQ(kernel.find("call "), std::string::npos) << kernel;
  OptimizeForHost(*c.emitted.module);
  const std::string optimized = Print(*c.emitted.module);
  EXPECT_NE(optimized.find("x float>"), std::string::npos) << "not vectorized:\n" << optimized;
  // The output buffer is disjoint from the inputs and the kernel says so:
  // no runtime overlap check before the vector loop.
  EXPECT_EQ(optimized.find("memcheck"), std::string::npos) << optimized;
}

TEST(EmittedIrTest, TransposingCopyRunsInBlocksTransposedInRegisters) {
  // A layout-changing copy reads its operand with a page stride along the
  // output's lines: it runs in 16x16 blocks (transposed_blocks.h), each
  // computed with the operand's lines innermost (vector loads), transposed
  // by shuffles and stored as whole vectors.
  constexpr const char* kHlo = R"(
HloModule m, is_scheduled=true
ENTRY e {
  x = f32[512,1024]{1,0} parameter(0)
  ROOT c = f32[512,1024]{0,1} copy(x)
})";
  Compiled c = Emit(kHlo);
  ASSERT_NE(c.emitted.module, nullptr);
  const std::string kernel = PrintFunction(*c.emitted.module, "c");
  EXPECT_NE(kernel.find("transposed_block"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("shufflevector <16 x i32>"), std::string::npos) << kernel;
  // 512 x 1024 elements: 32 x 64 blocks, no clipped one.
  EXPECT_EQ(kernel.find("block.clipped"), std::string::npos) << kernel;
  OptimizeForHost(*c.emitted.module);
  const std::string optimized = PrintFunction(*c.emitted.module, "c");
  // The operand's lines loaded as vectors, the block kept in registers, the
  // output's lines stored as vectors.
  EXPECT_NE(optimized.find("load <16 x i32>"), std::string::npos) << optimized;
  EXPECT_EQ(optimized.find("alloca"), std::string::npos) << optimized;
  EXPECT_NE(optimized.find("store <16 x i32>"), std::string::npos) << optimized;
}

TEST(EmittedIrTest, MultiOutputFusionUpdatesBothBuffersInPlaceThroughBitcast) {
  // Both outputs are dynamic-update-slices of the fusion's own operand
  // buffers (aliased by input_output_alias); the kernel loops over the
  // 1x3 update twice and never over the 4x3 / 5x3 arrays.
  constexpr const char* kHlo = R"(
HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}), {1}: (2, {}) }
fused {
  p0 = f32[4,3] parameter(0)
  p1 = f32[1,3] parameter(1)
  p2 = f32[5,3] parameter(2)
  i = s32[] parameter(3)
  z = s32[] constant(0)
  d0 = f32[4,3] dynamic-update-slice(p0, p1, i, z)
  b0 = f32[3,4] bitcast(d0)
  n = f32[1,3] negate(p1)
  d1 = f32[5,3] dynamic-update-slice(p2, n, i, z)
  ROOT t = (f32[3,4], f32[5,3]) tuple(b0, d1)
}
ENTRY e {
  p0 = f32[4,3] parameter(0)
  p1 = f32[1,3] parameter(1)
  p2 = f32[5,3] parameter(2)
  i = s32[] parameter(3)
  ROOT f = (f32[3,4], f32[5,3]) fusion(p0, p1, p2, i), kind=kLoop, calls=fused
})";
  Compiled c = Emit(kHlo);
  ASSERT_NE(c.emitted.module, nullptr);
  const std::string kernel = PrintFunction(*c.emitted.module, "f");
  EXPECT_NE(kernel.find("icmp slt i64 %dus.d1.iv, 3"), std::string::npos) << kernel;
  EXPECT_EQ(kernel.find("%loop."), std::string::npos) << kernel;
  EXPECT_EQ(kernel.find(", 12"), std::string::npos) << kernel;
}

TEST(EmittedIrTest, LargeElementwiseKernelRunsInPartsOnTheIntraOpThreads) {
  // 1 MiB outputs: the fusion's kernel is a part `(table, part, parts)` the
  // entry hands to the runtime's parallel-for; the small kernel and the
  // in-place update (its output is its operand's buffer) stay whole.
  constexpr const char* kHlo = R"(
HloModule m, is_scheduled=true
fused {
  a = f32[512,512] parameter(0)
  b = f32[512,512] parameter(1)
  t = f32[512,512] tanh(a)
  ROOT m = f32[512,512] multiply(t, b)
}
ENTRY e {
  x = f32[512,512] parameter(0)
  y = f32[512,512] parameter(1)
  big = f32[512,512] fusion(x, y), kind=kLoop, calls=fused
  s = f32[8] parameter(2)
  small = f32[8] negate(s)
  ROOT t = (f32[512,512], f32[8]) tuple(big, small)
})";
  CodegenOptions in_order;
  in_order.concurrent_kernels = false;
  Compiled c = Emit(kHlo, in_order);
  ASSERT_NE(c.emitted.module, nullptr);
  const llvm::Function* big = c.emitted.module->getFunction("big");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->arg_size(), 3u);
  const llvm::Function* small = c.emitted.module->getFunction("small");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->arg_size(), 1u);
  // The entry computation's function calls the kernels.
  const std::string entry = PrintFunction(*c.emitted.module, "computation.e");
  const size_t call = entry.find("call void @__hmo_cpu_parallel_for(");
  ASSERT_NE(call, std::string::npos) << entry;
  const std::string line = entry.substr(call, entry.find('\n', call) - call);
  EXPECT_NE(line.find("@big,"), std::string::npos) << line;

  // The two kernels are independent: with concurrent kernels the entry runs
  // them as one graph, `big` (in 8 parts of 128 KiB) kept on the calling
  // thread.
  Compiled graph = Emit(kHlo);
  ASSERT_NE(graph.emitted.module, nullptr);
  const std::string graph_entry = PrintFunction(*graph.emitted.module, "computation.e");
  EXPECT_NE(graph_entry.find("call void @__hmo_cpu_run_kernel_graph("), std::string::npos)
      << graph_entry;
  EXPECT_EQ(graph_entry.find("__hmo_cpu_parallel_for"), std::string::npos) << graph_entry;
  const llvm::GlobalVariable* nodes = nullptr;
  for (const llvm::GlobalVariable& global : graph.emitted.module->globals()) {
    if (global.getName().startswith("kernel_graph.") && !global.getName().endswith(".successors"))
      nodes = &global;
  }
  ASSERT_NE(nodes, nullptr);
  std::string text;
  llvm::raw_string_ostream stream(text);
  nodes->print(stream);
  stream.flush();
  // {kernel, parts, on_calling_thread, predecessors, first successor, successors}
  EXPECT_NE(text.find("@big to i8*), i64 8, i64 1, i64 0, i64 0, i64 0 }"), std::string::npos)
      << text;
  EXPECT_NE(text.find("@small to i8*), i64 1, i64 0, i64 0, i64 0, i64 0 }"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace hmo::cpu
