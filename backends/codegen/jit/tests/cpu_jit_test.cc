// CpuJit on small hand-built modules: results, where the sections land, page
// protections, symbol resolution and error statuses.

#include "hmo/codegen/jit/cpu_jit.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "page_permissions.h"

namespace hmo::codegen {
namespace {

constexpr int32_t kTable[8] = {3, 1, 4, 1, 5, 9, 2, 6};
constexpr int64_t kCounterStart = 1000;

struct ContextAndModule {
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = std::make_unique<llvm::Module>("test_module", *context);
};

llvm::Function* NewFunction(llvm::Module& module, llvm::Type* result,
                            llvm::ArrayRef<llvm::Type*> params, const char* name) {
  return llvm::Function::Create(llvm::FunctionType::get(result, params, false),
                                llvm::Function::ExternalLinkage, name, module);
}

// kTable as a constant i32[8] and an i64 counter starting at kCounterStart,
// with the given linkage.
struct TableAndCounter {
  llvm::ArrayType* table_type;
  llvm::GlobalVariable* table;
  llvm::GlobalVariable* counter;
};

TableAndCounter AddTableAndCounter(llvm::Module& module,
                                   llvm::GlobalValue::LinkageTypes table_linkage,
                                   llvm::GlobalValue::LinkageTypes counter_linkage,
                                   const char* table_name, const char* counter_name) {
  llvm::IRBuilder<> b(module.getContext());
  auto* table_type = llvm::ArrayType::get(b.getInt32Ty(), 8);
  std::vector<llvm::Constant*> entries;
  for (int32_t v : kTable) entries.push_back(b.getInt32(v));
  auto* table = new llvm::GlobalVariable(module, table_type, /*isConstant=*/true, table_linkage,
                                         llvm::ConstantArray::get(table_type, entries), table_name);
  auto* counter =
      new llvm::GlobalVariable(module, b.getInt64Ty(), /*isConstant=*/false, counter_linkage,
                               b.getInt64(kCounterStart), counter_name);
  return {table_type, table, counter};
}

// A module with
//   constant i32 hmo_table[8]              (read-only data)
//   global   i64 hmo_counter = 1000        (read-write data)
//   i32 table_at(i64 index)    -> hmo_table[index]
//   i64 bump(i64 delta)        -> hmo_counter += delta; returns the new value
ContextAndModule TableAndCounterModule() {
  ContextAndModule m;
  llvm::LLVMContext& ctx = *m.context;
  llvm::IRBuilder<> b(ctx);
  auto* i32 = b.getInt32Ty();
  auto* i64 = b.getInt64Ty();
  auto [table_type, table, counter] =
      AddTableAndCounter(*m.module, llvm::GlobalValue::ExternalLinkage,
                         llvm::GlobalValue::ExternalLinkage, "hmo_table", "hmo_counter");

  llvm::Function* table_at = NewFunction(*m.module, i32, {i64}, "table_at");
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", table_at));
  llvm::Value* slot = b.CreateInBoundsGEP(table_type, table, {b.getInt64(0), table_at->getArg(0)});
  b.CreateRet(b.CreateLoad(i32, slot));

  llvm::Function* bump = NewFunction(*m.module, i64, {i64}, "bump");
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", bump));
  llvm::Value* updated = b.CreateAdd(b.CreateLoad(i64, counter), bump->getArg(0));
  b.CreateStore(updated, counter);
  b.CreateRet(updated);
  return m;
}

bool Inside(const void* p, const void* begin, const void* end) {
  return reinterpret_cast<uintptr_t>(p) >= reinterpret_cast<uintptr_t>(begin) &&
         reinterpret_cast<uintptr_t>(p) < reinterpret_cast<uintptr_t>(end);
}

class CpuJitOptLevelTest : public ::testing::TestWithParam<int> {};

TEST_P(CpuJitOptLevelTest, RunsCodeUsingReadOnlyAndMutableGlobals) {
  ContextAndModule m = TableAndCounterModule();
  JitOptions options;
  options.opt_level = GetParam();
  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), options);
  ASSERT_TRUE(jit.ok()) << jit.status();

  auto table_at = (*jit)->Lookup("table_at");
  auto bump = (*jit)->Lookup("bump");
  ASSERT_TRUE(table_at.ok()) << table_at.status();
  ASSERT_TRUE(bump.ok()) << bump.status();
  auto* table_at_fn = reinterpret_cast<int32_t (*)(int64_t)>(*table_at);
  auto* bump_fn = reinterpret_cast<int64_t (*)(int64_t)>(*bump);
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(table_at_fn(i), kTable[i]) << i;
  EXPECT_EQ(bump_fn(5), kCounterStart + 5);
  EXPECT_EQ(bump_fn(-2), kCounterStart + 3);

  auto counter = (*jit)->Lookup("hmo_counter");
  ASSERT_TRUE(counter.ok()) << counter.status();
  EXPECT_EQ(*static_cast<int64_t*>(*counter), kCounterStart + 3);
}

INSTANTIATE_TEST_SUITE_P(Levels, CpuJitOptLevelTest, ::testing::Values(0, 1, 2, 3));

TEST(CpuJitTest, SectionsLieInOneReservationWithTheirProtections) {
  ContextAndModule m = TableAndCounterModule();
  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), JitOptions{});
  ASSERT_TRUE(jit.ok()) << jit.status();
  const CpuJit& j = **jit;
  auto code = (*jit)->Lookup("table_at");
  auto table = (*jit)->Lookup("hmo_table");
  auto counter = (*jit)->Lookup("hmo_counter");
  ASSERT_TRUE(code.ok() && table.ok() && counter.ok());

  ASSERT_NE(j.reservation_begin(), nullptr);
  const JitSectionSizes& sizes = j.section_sizes();
  EXPECT_EQ(sizes.reserved_bytes, static_cast<const char*>(j.reservation_end()) -
                                      static_cast<const char*>(j.reservation_begin()));
  EXPECT_EQ(sizes.reserved_bytes % 4096, 0);
  EXPECT_GT(sizes.code_bytes, 0);
  EXPECT_GE(sizes.rodata_bytes, static_cast<int64_t>(sizeof(kTable)));
  EXPECT_GE(sizes.rwdata_bytes, static_cast<int64_t>(sizeof(int64_t)));
  EXPECT_LE(sizes.code_bytes + sizes.rodata_bytes + sizes.rwdata_bytes, sizes.reserved_bytes);

  // Code first, then read-only data, then read-write data, all in the one
  // reservation.
  EXPECT_TRUE(Inside(*code, j.code_region_begin(), j.rodata_region_begin()));
  EXPECT_TRUE(Inside(*table, j.rodata_region_begin(), j.rwdata_region_begin()));
  EXPECT_TRUE(Inside(*counter, j.rwdata_region_begin(), j.reservation_end()));
  EXPECT_EQ(j.code_region_begin(), j.reservation_begin());

  EXPECT_EQ(PagePermissions(*code), "r-x");
  EXPECT_EQ(PagePermissions(*table), "r--");
  EXPECT_EQ(PagePermissions(*counter), "rw-");
  EXPECT_EQ(std::memcmp(*table, kTable, sizeof(kTable)), 0);
}

TEST(CpuJitTest, ModulesGetSeparateReservationsReleasedWithTheJit) {
  ContextAndModule first = TableAndCounterModule();
  ContextAndModule second = TableAndCounterModule();
  auto a = CpuJit::Compile(std::move(first.context), std::move(first.module), JitOptions{});
  auto b = CpuJit::Compile(std::move(second.context), std::move(second.module), JitOptions{});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->reservation_begin(), (*b)->reservation_begin());
  auto bump_a = reinterpret_cast<int64_t (*)(int64_t)>(*(*a)->Lookup("bump"));
  auto bump_b = reinterpret_cast<int64_t (*)(int64_t)>(*(*b)->Lookup("bump"));
  EXPECT_EQ(bump_a(1), kCounterStart + 1);
  EXPECT_EQ(bump_b(10), kCounterStart + 10);  // Each module has its own counter.
  const void* released = (*a)->reservation_begin();
  a->reset();
  EXPECT_EQ(PagePermissions(released), "unmapped");
}

// Test-local stand-in for a runtime library function.
extern "C" int64_t hmo_test_scale_and_add(int64_t value, int64_t scale) {
  return value * scale + 7;
}

TEST(CpuJitTest, CallsSymbolsPassedInOptions) {
  ContextAndModule m;
  llvm::IRBuilder<> b(*m.context);
  auto* i64 = b.getInt64Ty();
  llvm::Function* runtime = NewFunction(*m.module, i64, {i64, i64}, "hmo_test_scale_and_add");
  llvm::Function* entry = NewFunction(*m.module, i64, {i64}, "entry");
  b.SetInsertPoint(llvm::BasicBlock::Create(*m.context, "entry", entry));
  b.CreateRet(b.CreateCall(runtime, {entry->getArg(0), b.getInt64(3)}));

  JitOptions options;
  options.symbols = {{"hmo_test_scale_and_add", reinterpret_cast<void*>(&hmo_test_scale_and_add)}};
  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), options);
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto fn = (*jit)->Lookup("entry");
  ASSERT_TRUE(fn.ok()) << fn.status();
  EXPECT_EQ(reinterpret_cast<int64_t (*)(int64_t)>(*fn)(5), 22);
  auto runtime_address = (*jit)->Lookup("hmo_test_scale_and_add");
  ASSERT_TRUE(runtime_address.ok());
  EXPECT_EQ(*runtime_address, reinterpret_cast<void*>(&hmo_test_scale_and_add));
}

TEST(CpuJitTest, CallsLibmAndMemcpyFromTheProcess) {
  // f32 f(ptr dst, ptr src, f32 x): copies 256 bytes, returns expf(x) + tanhf(x).
  ContextAndModule m;
  llvm::IRBuilder<> b(*m.context);
  auto* f32 = b.getFloatTy();
  auto* ptr = b.getInt8PtrTy();
  llvm::Function* expf = NewFunction(*m.module, f32, {f32}, "expf");
  llvm::Function* tanhf = NewFunction(*m.module, f32, {f32}, "tanhf");
  llvm::Function* f = NewFunction(*m.module, f32, {ptr, ptr, f32}, "f");
  b.SetInsertPoint(llvm::BasicBlock::Create(*m.context, "entry", f));
  b.CreateMemCpy(f->getArg(0), llvm::MaybeAlign(1), f->getArg(1), llvm::MaybeAlign(1),
                 b.getInt64(256));
  b.CreateRet(
      b.CreateFAdd(b.CreateCall(expf, {f->getArg(2)}), b.CreateCall(tanhf, {f->getArg(2)})));

  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), JitOptions{});
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto fn = (*jit)->Lookup("f");
  ASSERT_TRUE(fn.ok()) << fn.status();
  char src[256], dst[256] = {};
  for (int i = 0; i < 256; ++i) src[i] = static_cast<char>(i * 7);
  const float result = reinterpret_cast<float (*)(char*, char*, float)>(*fn)(dst, src, 0.5f);
  EXPECT_NEAR(result, std::exp(0.5f) + std::tanh(0.5f), 1e-6f);
  EXPECT_EQ(std::memcmp(dst, src, 256), 0);
}

// A vectorizable loop calling libm (constant-pool loads, external calls in a
// loop) and a dense switch (a jump table in read-only data that refers back to
// the code): relocations between all three regions.
TEST(CpuJitTest, OptimizedLoopWithJumpTableAndConstantPool) {
  ContextAndModule m;
  llvm::LLVMContext& ctx = *m.context;
  llvm::IRBuilder<> b(ctx);
  auto* f32 = b.getFloatTy();
  auto* i64 = b.getInt64Ty();
  auto* i32 = b.getInt32Ty();
  auto* f32_ptr = f32->getPointerTo();
  llvm::Function* expf = NewFunction(*m.module, f32, {f32}, "expf");

  // void scale_exp(float* out, const float* in, i64 n): out[i] = in[i]*3.25 + expf(in[i])
  llvm::Function* loop_fn =
      NewFunction(*m.module, b.getVoidTy(), {f32_ptr, f32_ptr, i64}, "scale_exp");
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", loop_fn);
  auto* body = llvm::BasicBlock::Create(ctx, "body", loop_fn);
  auto* done = llvm::BasicBlock::Create(ctx, "done", loop_fn);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSGT(loop_fn->getArg(2), b.getInt64(0)), body, done);
  b.SetInsertPoint(body);
  llvm::PHINode* i = b.CreatePHI(i64, 2);
  i->addIncoming(b.getInt64(0), entry);
  llvm::Value* x = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, loop_fn->getArg(1), i));
  llvm::Value* y =
      b.CreateFAdd(b.CreateFMul(x, llvm::ConstantFP::get(f32, 3.25)), b.CreateCall(expf, {x}));
  b.CreateStore(y, b.CreateInBoundsGEP(f32, loop_fn->getArg(0), i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, body);
  b.CreateCondBr(b.CreateICmpSLT(next, loop_fn->getArg(2)), body, done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();

  // i32 pick(i32 k): a dense switch over 0..7 with unrelated results.
  const int32_t kResults[8] = {17, -4, 99, 12345, 8, -77, 3, 1 << 20};
  llvm::Function* pick = NewFunction(*m.module, i32, {i32}, "pick");
  auto* pick_entry = llvm::BasicBlock::Create(ctx, "entry", pick);
  auto* fallback = llvm::BasicBlock::Create(ctx, "fallback", pick);
  b.SetInsertPoint(fallback);
  b.CreateRet(b.getInt32(-1));
  b.SetInsertPoint(pick_entry);
  llvm::SwitchInst* sw = b.CreateSwitch(pick->getArg(0), fallback, 8);
  for (int k = 0; k < 8; ++k) {
    auto* arm = llvm::BasicBlock::Create(ctx, "arm", pick);
    llvm::IRBuilder<> arm_builder(arm);
    // Distinct code per arm so the switch cannot become a value lookup table.
    llvm::Value* value = arm_builder.CreateMul(pick->getArg(0), arm_builder.getInt32(kResults[k]));
    arm_builder.CreateRet(arm_builder.CreateXor(value, arm_builder.getInt32(k * 977)));
    sw->addCase(b.getInt32(k), arm);
  }

  JitOptions options;
  options.opt_level = 3;
  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), options);
  ASSERT_TRUE(jit.ok()) << jit.status();
  EXPECT_GT((*jit)->section_sizes().rodata_bytes, 0);  // Constant pool and jump table.
  auto loop_address = (*jit)->Lookup("scale_exp");
  auto pick_address = (*jit)->Lookup("pick");
  ASSERT_TRUE(loop_address.ok() && pick_address.ok());

  std::vector<float> in(37), out(37);
  for (size_t k = 0; k < in.size(); ++k) in[k] = -2.0f + 0.125f * static_cast<float>(k);
  reinterpret_cast<void (*)(float*, const float*, int64_t)> (*loop_address)(out.data(), in.data(),
                                                                            in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    EXPECT_NEAR(out[k], in[k] * 3.25f + std::exp(in[k]), 1e-5f * (1 + std::fabs(out[k]))) << k;
  }
  auto* pick_fn = reinterpret_cast<int32_t (*)(int32_t)>(*pick_address);
  for (int32_t k = 0; k < 8; ++k) {
    EXPECT_EQ(pick_fn(k), (k * kResults[k]) ^ (k * 977)) << k;
  }
  EXPECT_EQ(pick_fn(8), -1);
  EXPECT_EQ(pick_fn(-3), -1);
}

// A module of kChainLength internal functions, each calling the next: link
// k returns link(k+1)(x) + hmo_chain_table[k % 8], the last adds the internal
// counter, which it increments; `chain` (external) calls link 0. Split for a
// parallel compile, the links and the globals land in different parts and
// must still reach each other.
constexpr int kChainLength = 40;

ContextAndModule ChainModule() {
  ContextAndModule m;
  llvm::LLVMContext& ctx = *m.context;
  llvm::IRBuilder<> b(ctx);
  auto* i32 = b.getInt32Ty();
  auto* i64 = b.getInt64Ty();
  auto [table_type, table, counter] = AddTableAndCounter(
      *m.module, llvm::GlobalValue::PrivateLinkage, llvm::GlobalValue::InternalLinkage,
      "hmo_chain_table", "hmo_chain_counter");
  std::vector<llvm::Function*> links;
  for (int k = 0; k < kChainLength; ++k) {
    llvm::Function* link = llvm::Function::Create(llvm::FunctionType::get(i64, {i64}, false),
                                                  llvm::Function::InternalLinkage,
                                                  "link." + std::to_string(k), *m.module);
    link->addFnAttr(llvm::Attribute::NoInline);
    links.push_back(link);
  }
  for (int k = 0; k < kChainLength; ++k) {
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", links[k]));
    llvm::Value* x = links[k]->getArg(0);
    llvm::Value* rest;
    if (k + 1 < kChainLength) {
      rest = b.CreateCall(links[k + 1], {x});
    } else {
      llvm::Value* count = b.CreateLoad(i64, counter);
      b.CreateStore(b.CreateAdd(count, b.getInt64(1)), counter);
      rest = b.CreateAdd(x, count);
    }
    llvm::Value* slot = b.CreateInBoundsGEP(table_type, table, {b.getInt64(0), b.getInt64(k % 8)});
    b.CreateRet(b.CreateAdd(rest, b.CreateSExt(b.CreateLoad(i32, slot), i64)));
  }
  llvm::Function* chain = NewFunction(*m.module, i64, {i64}, "chain");
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", chain));
  b.CreateRet(b.CreateCall(links[0], {chain->getArg(0)}));
  return m;
}

TEST(CpuJitTest, ASplitModuleLinksItsPartsTogether) {
  int64_t table_sum = 0;
  for (int k = 0; k < kChainLength; ++k) table_sum += kTable[k % 8];
  for (int opt_level : {0, 2}) {
    for (int64_t threads : {1, 3}) {
      SCOPED_TRACE(testing::Message() << "opt level " << opt_level << ", threads " << threads);
      ContextAndModule m = ChainModule();
      JitOptions options;
      options.opt_level = opt_level;
      options.compile_threads = threads;
      auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), options);
      ASSERT_TRUE(jit.ok()) << jit.status();
      // 41 functions: three parts of at least 8 each when asked for three.
      EXPECT_EQ((*jit)->section_sizes().parts, threads);
      auto chain = (*jit)->Lookup("chain");
      ASSERT_TRUE(chain.ok()) << chain.status();
      auto* chain_fn = reinterpret_cast<int64_t (*)(int64_t)>(*chain);
      EXPECT_EQ(chain_fn(5), 5 + kCounterStart + table_sum);
      EXPECT_EQ(chain_fn(5), 5 + kCounterStart + 1 + table_sum);  // the counter moved on
      EXPECT_GT((*jit)->section_sizes().code_bytes, 0);
      EXPECT_GE((*jit)->section_sizes().reserved_bytes, threads * 4096);
    }
  }
}

TEST(CpuJitTest, ASmallModuleIsNotSplit) {
  // Two functions: fewer than 8 per part.
  ContextAndModule m = TableAndCounterModule();
  JitOptions options;
  options.compile_threads = 4;
  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), options);
  ASSERT_TRUE(jit.ok()) << jit.status();
  EXPECT_EQ((*jit)->section_sizes().parts, 1);
}

TEST(CpuJitTest, VerifierFailureIsInvalidArgument) {
  ContextAndModule m;
  llvm::IRBuilder<> b(*m.context);
  llvm::Function* broken = NewFunction(*m.module, b.getInt32Ty(), {}, "broken");
  b.SetInsertPoint(llvm::BasicBlock::Create(*m.context, "entry", broken));
  b.CreateAdd(b.getInt32(1), b.getInt32(2));  // No terminator.
  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), JitOptions{});
  ASSERT_FALSE(jit.ok());
  EXPECT_EQ(jit.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(jit.status().message());
  EXPECT_NE(message.find("test_module"), std::string::npos) << message;
  EXPECT_NE(message.find("terminator"), std::string::npos) << message;
}

TEST(CpuJitTest, UnknownSymbolLookupIsNotFound) {
  ContextAndModule m = TableAndCounterModule();
  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), JitOptions{});
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto missing = (*jit)->Lookup("no_such_function_anywhere");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(missing.status().message()).find("no_such_function_anywhere"),
            std::string::npos);
}

TEST(CpuJitTest, UnresolvedCallFailsCompileNamingTheSymbol) {
  ContextAndModule m;
  llvm::IRBuilder<> b(*m.context);
  llvm::Function* missing = NewFunction(*m.module, b.getVoidTy(), {}, "hmo_missing_runtime_fn");
  llvm::Function* caller = NewFunction(*m.module, b.getVoidTy(), {}, "caller");
  b.SetInsertPoint(llvm::BasicBlock::Create(*m.context, "entry", caller));
  b.CreateCall(missing);
  b.CreateRetVoid();
  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), JitOptions{});
  ASSERT_FALSE(jit.ok());
  EXPECT_NE(std::string(jit.status().message()).find("hmo_missing_runtime_fn"), std::string::npos)
      << jit.status();
}

TEST(CpuJitTest, RejectsOptLevelOutOfRange) {
  ContextAndModule m = TableAndCounterModule();
  JitOptions options;
  options.opt_level = 4;
  auto jit = CpuJit::Compile(std::move(m.context), std::move(m.module), options);
  ASSERT_FALSE(jit.ok());
  EXPECT_EQ(jit.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hmo::codegen
