// GPU kernels of the non-elemental operations (dot, convolution, reduce,
// reduce-window, gather, scatter, sort), emitted by the shared op
// emitters with the GPU target: the iteration count that sizes the launch,
// the prologue copies of in-place ops, no runtime call left in the PTX, the
// scatter strategy (atomic add / parallel / one thread), and ptxas accepting
// the PTX for sm_90.

#include <string>
#include <vector>

#include "gpu/codegen/gpu_kernel_module.h"
#include "gpu_codegen_test_support.h"
#include "gtest/gtest.h"

namespace hmo::gpu {
namespace {

using testing::Emit;
using testing::Emitted;
using testing::EntryNames;
using testing::ExpectPtxasAccepts;
using testing::KernelNamed;

bool Contains(const std::string& text, std::string_view what) { return text.find(what) != std::string::npos; }

// Nothing may be left for a linker: no runtime function, no .extern, no call
// of a function the module does not define.
void ExpectSelfContained(const std::string& ptx) {
  EXPECT_FALSE(Contains(ptx, "__hmo_cpu")) << ptx;
  EXPECT_FALSE(Contains(ptx, ".extern")) << ptx;
}

bool HasAtomicAdd(const std::string& ptx, std::string_view type) {
  const std::string suffix = ".add." + std::string(type);
  for (const char* op : {"atom", "red"}) {
    for (const char* space : {".", ".global."}) {
      if (Contains(ptx, std::string(op) + space + suffix.substr(1))) return true;
    }
  }
  return false;
}

TEST(GpuOpKernelsTest, DotIsALoopNestWithoutGemmCall) {
  Emitted e = Emit(R"(
HloModule dot, is_scheduled=true
ENTRY main {
  a = f32[32,16] parameter(0)
  b = f32[16,8] parameter(1)
  ROOT d = f32[32,8] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernel* kernel = KernelNamed(*e.kernels, "d");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->element_count, 32 * 8);  // one thread per output element
  EXPECT_EQ(kernel->launch.blocks, 1);
  EXPECT_EQ(kernel->launch.threads_per_block, 256);
  EXPECT_TRUE(kernel->prologue_copies.empty());
  const std::string& ptx = e.kernels->ptx;
  EXPECT_EQ(EntryNames(ptx), std::set<std::string>{"d"});
  ExpectSelfContained(ptx);
  EXPECT_FALSE(Contains(ptx, "call.uni")) << ptx;  // no function call at all
  EXPECT_TRUE(Contains(ptx, "mul.rn.f32") && Contains(ptx, "add.rn.f32")) << ptx;
  ExpectPtxasAccepts(ptx, "dot");
}

TEST(GpuOpKernelsTest, BatchedMixedTypeDot) {
  Emitted e = Emit(R"(
HloModule batched, is_scheduled=true
ENTRY main {
  a = bf16[4,8,16] parameter(0)
  b = bf16[4,16,2] parameter(1)
  ROOT d = f32[4,8,2] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  ASSERT_EQ(e.kernels->kernels.size(), 1u);
  EXPECT_EQ(e.kernels->kernels[0].element_count, 4 * 8 * 2);
  ExpectSelfContained(e.kernels->ptx);
  ExpectPtxasAccepts(e.kernels->ptx, "batched_dot");
}

TEST(GpuOpKernelsTest, NhwcConvolutionDoesNotCallTheRuntime) {
  // The layout the CPU backend hands to __hmo_cpu_conv2d_f32.
  Emitted e = Emit(R"(
HloModule conv, is_scheduled=true
ENTRY main {
  x = f32[2,8,8,3] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  ROOT c = f32[2,8,8,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernel* kernel = KernelNamed(*e.kernels, "c");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->element_count, 2 * 8 * 8 * 4);
  EXPECT_EQ(kernel->launch.blocks, 2);  // 512 / 256
  ExpectSelfContained(e.kernels->ptx);
  ExpectPtxasAccepts(e.kernels->ptx, "conv");
}

TEST(GpuOpKernelsTest, ReduceHasOneIterationPerOutputElement) {
  Emitted e = Emit(R"(
HloModule reduce, is_scheduled=true
add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}
ENTRY main {
  x = f32[64,128] parameter(0)
  z = f32[] constant(0)
  rows = f32[64] reduce(x, z), dimensions={1}, to_apply=add
  all = f32[] reduce(x, z), dimensions={0,1}, to_apply=add
  ROOT t = (f32[64], f32[]) tuple(rows, all)
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernel* rows = KernelNamed(*e.kernels, "rows");
  const GpuKernel* all = KernelNamed(*e.kernels, "all");
  ASSERT_NE(rows, nullptr);
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(rows->element_count, 64);
  EXPECT_EQ(rows->launch.threads_per_block, 64);
  EXPECT_EQ(all->element_count, 1);  // a scalar: one thread sums everything
  EXPECT_EQ(all->launch.threads_per_block, 32);
  EXPECT_TRUE(Contains(e.kernels->ptx, "add.rn.f32"));
  ExpectSelfContained(e.kernels->ptx);
  ExpectPtxasAccepts(e.kernels->ptx, "reduce");
}

TEST(GpuOpKernelsTest, VariadicReduceWritesBothOutputs) {
  Emitted e = Emit(R"(
HloModule argmax, is_scheduled=true
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f32[16,10] parameter(0)
  k = s32[16,10] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[16], s32[16]) reduce(x, k, lo, zero), dimensions={1}, to_apply=argmax
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernel* kernel = KernelNamed(*e.kernels, "r");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->element_count, 16);
  EXPECT_TRUE(kernel->prologue_copies.empty());
  ExpectSelfContained(e.kernels->ptx);
  ExpectPtxasAccepts(e.kernels->ptx, "argmax");
}

TEST(GpuOpKernelsTest, MaxPoolReduceWindow) {
  Emitted e = Emit(R"(
HloModule pool, is_scheduled=true
max {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT m = f32[] maximum(l, r)
}
ENTRY main {
  x = f32[1,8,8,4] parameter(0)
  lo = f32[] constant(-inf)
  ROOT p = f32[1,4,4,4] reduce-window(x, lo), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  ASSERT_EQ(e.kernels->kernels.size(), 1u);
  EXPECT_EQ(e.kernels->kernels[0].element_count, 64);
  // maximum propagates NaN: a compare and select rather than max.f32.
  EXPECT_TRUE(Contains(e.kernels->ptx, "max.f32") || Contains(e.kernels->ptx, "selp.f32")) << e.kernels->ptx;
  ExpectSelfContained(e.kernels->ptx);
  ExpectPtxasAccepts(e.kernels->ptx, "pool");
}

TEST(GpuOpKernelsTest, GatherRows) {
  Emitted e = Emit(R"(
HloModule gather, is_scheduled=true
ENTRY main {
  table = f32[100,32] parameter(0)
  ids = s32[12] parameter(1)
  ROOT g = f32[12,32] gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,32}
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  ASSERT_EQ(e.kernels->kernels.size(), 1u);
  EXPECT_EQ(e.kernels->kernels[0].element_count, 12 * 32);
  EXPECT_EQ(e.kernels->kernels[0].launch.blocks, 2);
  ExpectSelfContained(e.kernels->ptx);
  ExpectPtxasAccepts(e.kernels->ptx, "gather");
}

constexpr char kScatterTemplate[] = R"(
HloModule scatter, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }
combine {
  old = TYPE[] parameter(0)
  new = TYPE[] parameter(1)
  ROOT c = TYPE[] COMBINER
}
ENTRY main {
  x = TYPE[50,8] parameter(0)
  ids = s32[20,1] parameter(1)
  u = TYPE[20,8] parameter(2)
  ROOT s = TYPE[50,8] scatter(x, ids, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combineATTRS
}
)";

std::string ScatterModule(std::string_view type, std::string_view combiner, std::string_view attributes = "") {
  std::string text = kScatterTemplate;
  auto replace = [&](std::string_view from, std::string_view to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  };
  replace("COMBINER", combiner);
  replace("TYPE", type);
  replace("ATTRS", attributes);
  return text;
}

TEST(GpuOpKernelsTest, AddScatterIsParallelWithAtomicAdds) {
  for (const char* type : {"f32", "f64", "s32", "u64"}) {
    SCOPED_TRACE(type);
    Emitted e = Emit(ScatterModule(type, "add(old, new)"));
    ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
    const GpuKernel* kernel = KernelNamed(*e.kernels, "s");
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->element_count, 20 * 8);  // one thread per update element
    ASSERT_EQ(kernel->prologue_copies.size(), 1u);
    EXPECT_EQ(kernel->prologue_copies[0].operand_number, 0);
    EXPECT_EQ(kernel->prologue_copies[0].output_index, ShapeIndex{});
    const std::string& ptx = e.kernels->ptx;
    const std::string t = type;
    const std::string ptx_type = t == "f32" ? "f32" : t == "f64" ? "f64" : t == "s32" ? "u32" : "u64";
    EXPECT_TRUE(HasAtomicAdd(ptx, ptx_type) || (t == "s32" && HasAtomicAdd(ptx, "s32"))) << ptx;
    ExpectSelfContained(ptx);
    ExpectPtxasAccepts(ptx, "scatter_add_" + t);
  }
}

TEST(GpuOpKernelsTest, ReversedAddOperandsAlsoUseAtomics) {
  Emitted e = Emit(ScatterModule("f32", "add(new, old)"));
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  EXPECT_EQ(e.kernels->kernels[0].element_count, 160);
  EXPECT_TRUE(HasAtomicAdd(e.kernels->ptx, "f32")) << e.kernels->ptx;
}

TEST(GpuOpKernelsTest, NonAtomicCombinerRunsInOneThread) {
  Emitted e = Emit(ScatterModule("f32", "multiply(old, new)"));
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernel* kernel = KernelNamed(*e.kernels, "s");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->element_count, 1);
  EXPECT_EQ(kernel->launch.blocks, 1);
  EXPECT_EQ(kernel->launch.threads_per_block, 32);
  ASSERT_EQ(kernel->prologue_copies.size(), 1u);
  EXPECT_FALSE(HasAtomicAdd(e.kernels->ptx, "f32"));
  EXPECT_FALSE(Contains(e.kernels->ptx, "atom.")) << e.kernels->ptx;
  EXPECT_TRUE(Contains(e.kernels->ptx, "mul.rn.f32"));
  // Only global thread 0 works: no grid stride, so nctaid is never read.
  EXPECT_FALSE(Contains(e.kernels->ptx, "%nctaid.x")) << e.kernels->ptx;
  ExpectSelfContained(e.kernels->ptx);
  ExpectPtxasAccepts(e.kernels->ptx, "scatter_multiply");
}

TEST(GpuOpKernelsTest, SmallIntegerAddCannotUseAtomicsAndRunsInOneThread) {
  Emitted e = Emit(ScatterModule("s8", "add(old, new)"));
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  EXPECT_EQ(e.kernels->kernels[0].element_count, 1);
  EXPECT_FALSE(Contains(e.kernels->ptx, "atom.")) << e.kernels->ptx;
  ExpectPtxasAccepts(e.kernels->ptx, "scatter_s8");
}

TEST(GpuOpKernelsTest, OverwriteAndUniqueIndicesScattersAreParallel) {
  Emitted overwrite = Emit(ScatterModule("f32", "add(new, new)"));  // not a plain add of old and new
  ASSERT_TRUE(overwrite.kernels.ok()) << overwrite.kernels.status();
  EXPECT_EQ(overwrite.kernels->kernels[0].element_count, 1);

  Emitted replace = Emit(R"(
HloModule scatter_replace, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }
take_new {
  old = f32[] parameter(0)
  ROOT new = f32[] parameter(1)
}
ENTRY main {
  x = f32[50,8] parameter(0)
  ids = s32[20,1] parameter(1)
  u = f32[20,8] parameter(2)
  ROOT s = f32[50,8] scatter(x, ids, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=take_new
}
)");
  ASSERT_TRUE(replace.kernels.ok()) << replace.kernels.status();
  EXPECT_EQ(replace.kernels->kernels[0].element_count, 160);
  EXPECT_FALSE(Contains(replace.kernels->ptx, "atom.")) << replace.kernels->ptx;
  ExpectPtxasAccepts(replace.kernels->ptx, "scatter_replace");

  Emitted unique = Emit(ScatterModule("f32", "multiply(old, new)", ", unique_indices=true"));
  ASSERT_TRUE(unique.kernels.ok()) << unique.kernels.status();
  EXPECT_EQ(unique.kernels->kernels[0].element_count, 160);
  EXPECT_FALSE(Contains(unique.kernels->ptx, "atom.")) << unique.kernels->ptx;
}

TEST(GpuOpKernelsTest, SortCopiesEveryOperandFirstAndSortsRowsInThreads) {
  Emitted e = Emit(R"(
HloModule sort, is_scheduled=true
gt {
  ka = s32[] parameter(0)
  kb = s32[] parameter(1)
  va = f32[] parameter(2)
  vb = f32[] parameter(3)
  ROOT c = pred[] compare(ka, kb), direction=GT
}
ENTRY main {
  k = s32[12,100] parameter(0)
  v = f32[12,100] parameter(1)
  ROOT s = (s32[12,100], f32[12,100]) sort(k, v), dimensions={1}, is_stable=true, to_apply=gt
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernel* kernel = KernelNamed(*e.kernels, "s");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->element_count, 12);  // one iteration per row
  ASSERT_EQ(kernel->prologue_copies.size(), 2u);
  EXPECT_EQ(kernel->prologue_copies[0].operand_number, 0);
  EXPECT_EQ(kernel->prologue_copies[0].output_index, ShapeIndex{0});
  EXPECT_EQ(kernel->prologue_copies[1].operand_number, 1);
  EXPECT_EQ(kernel->prologue_copies[1].output_index, ShapeIndex{1});
  const std::string& ptx = e.kernels->ptx;
  EXPECT_EQ(EntryNames(ptx), std::set<std::string>{"s"});
  ExpectSelfContained(ptx);
  EXPECT_FALSE(Contains(ptx, "call.uni")) << ptx;  // the comparator is inlined
  // The s32 key comparison (LLVM may branch on its negation).
  EXPECT_TRUE(Contains(ptx, "setp.gt.s32") || Contains(ptx, "setp.le.s32")) << ptx;
  ExpectPtxasAccepts(ptx, "sort");
}

TEST(GpuOpKernelsTest, SortAlongAMajorDimensionOfAColumnMajorArray) {
  Emitted e = Emit(R"(
HloModule sort_major, is_scheduled=true
lt {
  a = f16[] parameter(0)
  b = f16[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f16[6,3,4]{0,1,2} parameter(0)
  ROOT s = f16[6,3,4]{0,1,2} sort(x), dimensions={0}, to_apply=lt
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  ASSERT_EQ(e.kernels->kernels.size(), 1u);
  EXPECT_EQ(e.kernels->kernels[0].element_count, 3 * 4);
  ASSERT_EQ(e.kernels->kernels[0].prologue_copies.size(), 1u);
  EXPECT_EQ(e.kernels->kernels[0].prologue_copies[0].output_index, ShapeIndex{});
  ExpectSelfContained(e.kernels->ptx);
  ExpectPtxasAccepts(e.kernels->ptx, "sort_major");
}

TEST(GpuOpKernelsTest, SelectAndScatterRunsInOneThread) {
  Emitted e = Emit(R"(
HloModule sas, is_scheduled=true
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}
ENTRY main {
  x = f32[8] parameter(0)
  src = f32[4] parameter(1)
  z = f32[] constant(0)
  ROOT s = f32[8] select-and-scatter(x, src, z), window={size=2 stride=2}, select=ge, scatter=add
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernel* kernel = KernelNamed(*e.kernels, "s");
  ASSERT_NE(kernel, nullptr);
  // Windows may overlap, so one thread initializes and scatters.
  EXPECT_EQ(kernel->element_count, 1);
  ExpectSelfContained(e.kernels->ptx);
  ExpectPtxasAccepts(e.kernels->ptx, "select_and_scatter");
}

}  // namespace
}  // namespace hmo::gpu
