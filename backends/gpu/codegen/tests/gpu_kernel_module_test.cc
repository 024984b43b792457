// PTX from EmitGpuKernels: kernel entries, launch dimensions, libdevice math
// resolved (no .extern function left), errors for what has no GPU kernel,
// and -- when the toolkit's ptxas is installed -- that ptxas accepts the PTX
// for sm_90 (the H200 the device checks run on).

#include <cstdio>
#include <iostream>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "support/test_data.h"
#include "gpu/codegen/gpu_kernel_module.h"
#include "gpu_codegen_test_support.h"
#include "gpu/codegen/libdevice_math.h"
#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::gpu {
namespace {

using testing::Emit;
using testing::Emitted;
using testing::EntryNames;
using testing::ExpectPtxasAccepts;

constexpr char kElementwiseFusion[] = R"(
HloModule elementwise, is_scheduled=true

fused {
  a = f32[1000] parameter(0)
  b = f32[1000] parameter(1)
  sum = f32[1000] add(a, b)
  ROOT product = f32[1000] multiply(sum, a)
}

ENTRY main {
  x = f32[1000] parameter(0)
  y = f32[1000] parameter(1)
  ROOT f = f32[1000] fusion(x, y), kind=kLoop, calls=fused
}
)";

TEST(GpuKernelModuleTest, ElementwiseFusionIsOneKernelWithGridStrideIndexing) {
  Emitted e = Emit(kElementwiseFusion);
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernelModule& m = *e.kernels;
  ASSERT_EQ(m.kernels.size(), 1u);
  const GpuKernel& kernel = m.kernels[0];
  EXPECT_EQ(kernel.name, "f");
  EXPECT_EQ(kernel.instruction->name(), "f");
  EXPECT_EQ(kernel.element_count, 1000);
  EXPECT_EQ(kernel.launch.threads_per_block, 256);
  EXPECT_EQ(kernel.launch.blocks, 4);  // ceil(1000 / 256)
  EXPECT_EQ(EntryNames(m.ptx), std::set<std::string>{"f"});
  EXPECT_NE(m.ptx.find(".target sm_80"), std::string::npos);
  EXPECT_NE(m.ptx.find("%ctaid.x"), std::string::npos);
  EXPECT_NE(m.ptx.find("%tid.x"), std::string::npos);
  EXPECT_NE(m.ptx.find("%nctaid.x"), std::string::npos);  // grid stride
  // IEEE round-to-nearest, not contracted into an fma: the CPU backend's
  // results, bit for bit.
  EXPECT_NE(m.ptx.find("add.rn.f32"), std::string::npos);
  EXPECT_NE(m.ptx.find("mul.rn.f32"), std::string::npos);
  EXPECT_EQ(m.ptx.find("fma.rn.f32"), std::string::npos);
  EXPECT_EQ(m.ptx.find(".extern"), std::string::npos) << m.ptx;
  if (std::getenv("HMO_GPU_TEST_PRINT_PTX") != nullptr) std::cout << m.ptx;
  EXPECT_TRUE(m.libdevice_path.empty());  // no math, nothing linked
  ExpectPtxasAccepts(m.ptx, "elementwise");
}

TEST(GpuKernelModuleTest, SmallOutputsGetOneBlockOfWholeWarps) {
  Emitted e = Emit(R"(
HloModule small, is_scheduled=true
ENTRY main {
  x = s32[5] parameter(0)
  ROOT n = s32[5] negate(x)
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  ASSERT_EQ(e.kernels->kernels.size(), 1u);
  EXPECT_EQ(e.kernels->kernels[0].launch.threads_per_block, 32);
  EXPECT_EQ(e.kernels->kernels[0].launch.blocks, 1);
  EXPECT_NE(e.kernels->ptx.find("neg.s32"), std::string::npos);
}

TEST(GpuKernelModuleTest, BroadcastInsideFusion) {
  Emitted e = Emit(R"(
HloModule broadcast, is_scheduled=true

fused {
  row = f32[64] parameter(0)
  m = f32[32,64] parameter(1)
  b = f32[32,64] broadcast(row), dimensions={1}
  ROOT s = f32[32,64] subtract(m, b)
}

ENTRY main {
  r = f32[64] parameter(0)
  x = f32[32,64] parameter(1)
  ROOT bias.fusion = f32[32,64] fusion(r, x), kind=kLoop, calls=fused
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  ASSERT_EQ(e.kernels->kernels.size(), 1u);
  EXPECT_EQ(e.kernels->kernels[0].name, "bias_fusion");  // '.' is not a PTX identifier character
  EXPECT_EQ(e.kernels->kernels[0].element_count, 32 * 64);
  EXPECT_EQ(e.kernels->kernels[0].launch.blocks, 8);
  EXPECT_EQ(EntryNames(e.kernels->ptx), std::set<std::string>{"bias_fusion"});
  EXPECT_NE(e.kernels->ptx.find("sub.rn.f32"), std::string::npos);
  ExpectPtxasAccepts(e.kernels->ptx, "broadcast");
}

TEST(GpuKernelModuleTest, TransposeAndCopyAreKernelsParametersAndTuplesAreNot) {
  Emitted e = Emit(R"(
HloModule transpose, is_scheduled=true
ENTRY main {
  x = f32[16,48] parameter(0)
  t = f32[48,16] transpose(x), dimensions={1,0}
  c = f32[48,16]{0,1} copy(t)
  ROOT out = (f32[48,16], f32[48,16]{0,1}) tuple(t, c)
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  EXPECT_EQ(EntryNames(e.kernels->ptx), (std::set<std::string>{"t", "c"}));
  ASSERT_EQ(e.kernels->kernels.size(), 2u);
  for (const GpuKernel& kernel : e.kernels->kernels) EXPECT_EQ(kernel.element_count, 16 * 48);
  // Delinearizing a 2-D index divides by the minor dimension.
  EXPECT_TRUE(e.kernels->ptx.find("div.") != std::string::npos ||
              e.kernels->ptx.find("mul.hi") != std::string::npos ||
              e.kernels->ptx.find("shr.") != std::string::npos);
  ExpectPtxasAccepts(e.kernels->ptx, "transpose");
}

TEST(GpuKernelModuleTest, ExpAndTanhComeFromLibdevice) {
  if (!std::filesystem::exists(DefaultLibdevicePath())) {
    GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  }
  Emitted e = Emit(R"(
HloModule math, is_scheduled=true

fused {
  p = f32[256] parameter(0)
  e = f32[256] exponential(p)
  ROOT t = f32[256] tanh(e)
}

ENTRY main {
  x = f32[256] parameter(0)
  d = f64[256] parameter(1)
  math.fusion = f32[256] fusion(x), kind=kLoop, calls=fused
  log.d = f64[256] log(d)
  ROOT r = (f32[256], f64[256]) tuple(math.fusion, log.d)
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const std::string& ptx = e.kernels->ptx;
  EXPECT_EQ(EntryNames(ptx), (std::set<std::string>{"math_fusion", "log_d"}));
  EXPECT_EQ(e.kernels->libdevice_path, DefaultLibdevicePath());
  // Everything libdevice provided was linked in and inlined or kept as a
  // defined .func: no call leaves the module.
  EXPECT_EQ(ptx.find(".extern"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("__nvvm_reflect"), std::string::npos);
  EXPECT_EQ(ptx.find("tanhf"), std::string::npos);
  // libdevice's expf is built on the hardware's ex2.
  EXPECT_NE(ptx.find("ex2.approx"), std::string::npos);
  ExpectPtxasAccepts(ptx, "math");
}

TEST(GpuKernelModuleTest, MultiOutputFusionWritesEveryOutput) {
  Emitted e = Emit(R"(
HloModule multi, is_scheduled=true

fused {
  p = f32[8,8] parameter(0)
  n = f32[8,8] negate(p)
  a = f32[8,8] abs(p)
  ROOT t = (f32[8,8], f32[8,8]) tuple(n, a)
}

ENTRY main {
  x = f32[8,8] parameter(0)
  ROOT f = (f32[8,8], f32[8,8]) fusion(x), kind=kLoop, calls=fused
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  ASSERT_EQ(e.kernels->kernels.size(), 1u);
  EXPECT_EQ(e.kernels->kernels[0].element_count, 64);
  EXPECT_NE(e.kernels->ptx.find("neg.f32"), std::string::npos);
  EXPECT_NE(e.kernels->ptx.find("abs.f32"), std::string::npos);
  ExpectPtxasAccepts(e.kernels->ptx, "multi");
}

TEST(GpuKernelModuleTest, KernelsOfConditionalBranchesAreEmitted) {
  Emitted e = Emit(test_support::ReadTestData("gpu/conditional_log_exp.hlo"));
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  // The compare, one kernel per branch, and the copies copy-insertion adds
  // for the branch operands (the conditional's operands share a value).
  const std::set<std::string> names = EntryNames(e.kernels->ptx);
  EXPECT_TRUE(names.contains("less"));
  EXPECT_TRUE(names.contains("tl"));
  EXPECT_TRUE(names.contains("ee"));
  for (const std::string& name : names) {
    EXPECT_TRUE(name == "less" || name == "tl" || name == "ee" || name.rfind("copy", 0) == 0) << name;
  }
  ExpectPtxasAccepts(e.kernels->ptx, "conditional");
}

TEST(GpuKernelModuleTest, CustomCallHasNoGpuKernel) {
  Emitted e = Emit(R"(
HloModule custom, is_scheduled=true
ENTRY main {
  a = f32[4,4] parameter(0)
  ROOT c = f32[4,4] custom-call(a), custom_call_target="my_library_op"
}
)");
  ASSERT_FALSE(e.kernels.ok());
  EXPECT_EQ(e.kernels.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(e.kernels.status().message()).find("custom-call instruction c"), std::string::npos)
      << e.kernels.status();
}

TEST(GpuKernelModuleTest, InputFusionRunsAsOneKernel) {
  Emitted e = Emit(R"(
HloModule input_fusion, is_scheduled=true

add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}

fused {
  p = f32[8] parameter(0)
  z = f32[] constant(0)
  ROOT red = f32[] reduce(p, z), dimensions={0}, to_apply=add
}

ENTRY main {
  x = f32[8] parameter(0)
  ROOT f = f32[] fusion(x), kind=kInput, calls=fused
}
)");
  // A reduction fusion: the reduce's loops with the fused producers inside
  // (the shared emitter), one kernel whatever its kind.
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  bool fusion_kernel = false;
  for (const GpuKernel& kernel : e.kernels->kernels) {
    EXPECT_NE(kernel.instruction->opcode(), HloOpcode::kReduce);
    fusion_kernel |= kernel.instruction->name() == "f";
  }
  EXPECT_TRUE(fusion_kernel);
}

TEST(GpuKernelModuleTest, ColumnReductionGivesEachOutputAThread) {
  // The CPU accumulates a column reduction in its outputs on one thread; a
  // GPU's threads all run the kernel, so each output element is a
  // grid-stride iteration reducing its column.
  Emitted e = Emit(R"(
HloModule column, is_scheduled=true

add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}

ENTRY main {
  x = f32[40,9] parameter(0)
  z = f32[] constant(0)
  ROOT red = f32[9] reduce(x, z), dimensions={0}, to_apply=add
}
)");
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernel* kernel = nullptr;
  for (const GpuKernel& k : e.kernels->kernels) {
    if (k.instruction->opcode() == HloOpcode::kReduce) kernel = &k;
  }
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->element_count, 9);
  ExpectPtxasAccepts(e.kernels->ptx, "column_reduction");
}

TEST(LibdeviceMathTest, TableMapsIntrinsicsAndLibmNames) {
  EXPECT_EQ(LibdeviceNameFor("llvm.exp", 32), "__nv_expf");
  EXPECT_EQ(LibdeviceNameFor("llvm.exp", 64), "__nv_exp");
  EXPECT_EQ(LibdeviceNameFor("llvm.pow", 32), "__nv_powf");
  EXPECT_EQ(LibdeviceNameFor("tanhf", 32), "__nv_tanhf");
  EXPECT_EQ(LibdeviceNameFor("tanh", 64), "__nv_tanh");
  EXPECT_EQ(LibdeviceNameFor("atan2f", 32), "__nv_atan2f");
  EXPECT_EQ(LibdeviceNameFor("tanh", 32), "");  // f32 tanh is "tanhf"
  EXPECT_EQ(LibdeviceNameFor("llvm.sqrt", 32), "");  // selected natively
}

}  // namespace
}  // namespace hmo::gpu

namespace hmo::gpu {
namespace {

using testing::Emit;
using testing::Emitted;
using testing::ExpectPtxasAccepts;

constexpr char kInPlaceUpdate[] = R"(
HloModule dus, is_scheduled=true

fused {
  buffer = f32[64] parameter(0)
  update = f32[4] parameter(1)
  start = s32[] parameter(2)
  doubled = f32[4] add(update, update)
  ROOT d = f32[64] dynamic-update-slice(buffer, doubled, start)
}

ENTRY main {
  x = f32[64] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  n = f32[64] negate(x)
  ROOT f = f32[64] fusion(n, u, i), kind=kLoop, calls=fused
}
)";

TEST(GpuKernelModuleTest, InPlaceDynamicUpdateSliceFusionCoversOnlyTheUpdate) {
  Emitted e = Emit(kInPlaceUpdate);
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const GpuKernel* kernel = nullptr;
  for (const GpuKernel& k : e.kernels->kernels) {
    if (k.name == "f") kernel = &k;
  }
  ASSERT_NE(kernel, nullptr);
  const bool shares = e.prepared.assignment->GetAllSlices(kernel->instruction, {}) ==
                      e.prepared.assignment->GetAllSlices(kernel->instruction->operand(0), {});
  // The fusion's output is its operand's buffer, so only the 4 updated
  // elements are written.
  EXPECT_TRUE(shares);
  EXPECT_EQ(kernel->element_count, 4);
  EXPECT_EQ(kernel->launch.blocks, 1);
  ExpectPtxasAccepts(e.kernels->ptx, "dus");
}

}  // namespace
}  // namespace hmo::gpu

namespace hmo::gpu {
namespace {

using testing::Emit;
using testing::Emitted;

TEST(GpuKernelModuleTest, InPlaceUpdateThatReadsAnotherUpdatedBufferIsRejected) {
  // The second update reads the first's buffer at the row the first writes:
  // the sequential CPU kernel computes it before writing; a GPU's threads
  // write rows while others read them, so the emitter refuses it.
  Emitted e = Emit(R"(
HloModule two_updates, is_scheduled=true

fused {
  p0 = s32[4,2] parameter(0)
  p1 = s32[1,2] parameter(1)
  p2 = s32[4,2] parameter(2)
  i = s32[] parameter(3)
  z = s32[] constant(0)
  d0 = s32[4,2] dynamic-update-slice(p0, p1, i, z)
  row = s32[1,2] dynamic-slice(p0, i, z), dynamic_slice_sizes={1,2}
  d1 = s32[4,2] dynamic-update-slice(p2, row, i, z)
  ROOT t = (s32[4,2], s32[4,2]) tuple(d0, d1)
}

ENTRY main {
  a = s32[4,2] parameter(0)
  u = s32[1,2] parameter(1)
  b = s32[4,2] parameter(2)
  i = s32[] parameter(3)
  na = s32[4,2] negate(a)
  nb = s32[4,2] negate(b)
  ROOT f = (s32[4,2], s32[4,2]) fusion(na, u, nb, i), kind=kLoop, calls=fused
}
)");
  ASSERT_FALSE(e.kernels.ok());
  EXPECT_EQ(e.kernels.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(e.kernels.status().message()).find("in-place dynamic-update-slice d1"),
            std::string::npos)
      << e.kernels.status();
}

TEST(GpuKernelModuleTest, InPlaceUpdateThatReadsItsOwnBufferIsRejected) {
  Emitted e = Emit(R"(
HloModule dus_self, is_scheduled=true

fused {
  buffer = f32[64] parameter(0)
  start = s32[] parameter(1)
  window = f32[4] slice(buffer), slice={[0:4]}
  ROOT d = f32[64] dynamic-update-slice(buffer, window, start)
}

ENTRY main {
  x = f32[64] parameter(0)
  i = s32[] parameter(1)
  n = f32[64] negate(x)
  ROOT f = f32[64] fusion(n, i), kind=kLoop, calls=fused
}
)");
  const bool in_place = e.prepared.assignment != nullptr &&
                        e.prepared.assignment->GetAllSlices(e.prepared.module->entry_computation()->root_instruction(), {}) ==
                            e.prepared.assignment->GetAllSlices(
                                e.prepared.module->entry_computation()->root_instruction()->operand(0), {});
  // The module is fixed, so is the assignment: the fusion's output shares its
  // operand's buffer (hmo's dataflow lets a loop fusion whose root is a
  // dynamic-update-slice update operand 0 in place), which is what the
  // emitter must refuse here.
  ASSERT_TRUE(in_place) << "buffer assignment no longer shares the updated buffer; the test "
                           "needs a module where it does";
  ASSERT_FALSE(e.kernels.ok());
  EXPECT_EQ(e.kernels.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(e.kernels.status().message()).find("update reads the updated buffer"), std::string::npos)
      << e.kernels.status();
}

}  // namespace
}  // namespace hmo::gpu
