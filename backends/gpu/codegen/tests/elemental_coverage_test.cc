// Every elemental operation the shared emitter covers becomes valid PTX:
// each instruction below is its own kernel, the PTX must have one .entry per
// instruction, no .extern (every math function resolved from libdevice),
// and ptxas must accept it for sm_90 when the toolkit is installed.

#include <filesystem>
#include <set>
#include <string>

#include "gpu/codegen/gpu_kernel_module.h"
#include "gpu_codegen_test_support.h"
#include "gtest/gtest.h"

namespace hmo::gpu {
namespace {

constexpr char kManyOps[] = R"(
HloModule many_ops, is_scheduled=true

ENTRY main {
  f = f32[16] parameter(0)
  g = f32[16] parameter(1)
  d = f64[16] parameter(2)
  i = s32[16] parameter(3)
  j = s32[16] parameter(4)
  h = f16[16] parameter(5)
  bf = bf16[16] parameter(6)
  u = u8[16] parameter(7)
  k = s32[] parameter(8)
  abs.0 = f32[16] abs(f)
  neg.0 = f32[16] negate(f)
  exp.0 = f32[16] exponential(f)
  expm1.0 = f32[16] exponential-minus-one(f)
  log.0 = f32[16] log(f)
  log1p.0 = f32[16] log-plus-one(f)
  logistic.0 = f32[16] logistic(f)
  sqrt.0 = f32[16] sqrt(f)
  rsqrt.0 = f32[16] rsqrt(f)
  cbrt.0 = f32[16] cbrt(f)
  tanh.0 = f32[16] tanh(f)
  sin.0 = f32[16] sine(f)
  cos.0 = f32[16] cosine(f)
  tan.0 = f32[16] tan(f)
  erf.0 = f32[16] erf(f)
  floor.0 = f32[16] floor(f)
  ceil.0 = f32[16] ceil(f)
  round.0 = f32[16] round-nearest-afz(f)
  rne.0 = f32[16] round-nearest-even(f)
  sign.0 = f32[16] sign(f)
  add.0 = f32[16] add(f, g)
  sub.0 = f32[16] subtract(f, g)
  mul.0 = f32[16] multiply(f, g)
  div.0 = f32[16] divide(f, g)
  rem.0 = f32[16] remainder(f, g)
  pow.0 = f32[16] power(f, g)
  atan2.0 = f32[16] atan2(f, g)
  max.0 = f32[16] maximum(f, g)
  min.0 = f32[16] minimum(f, g)
  dexp.0 = f64[16] exponential(d)
  dtanh.0 = f64[16] tanh(d)
  dpow.0 = f64[16] power(d, d)
  idiv.0 = s32[16] divide(i, j)
  irem.0 = s32[16] remainder(i, j)
  ipow.0 = s32[16] power(i, j)
  shl.0 = s32[16] shift-left(i, j)
  shr.0 = s32[16] shift-right-arithmetic(i, j)
  popcnt.0 = s32[16] popcnt(i)
  clz.0 = s32[16] count-leading-zeros(i)
  not.0 = s32[16] not(i)
  cmp.0 = pred[16] compare(f, g), direction=LT
  sel.0 = f32[16] select(cmp.0, f, g)
  clamp.0 = f32[16] clamp(g, f, g)
  f2i.0 = s32[16] convert(f)
  f2u.0 = u8[16] convert(f)
  i2f.0 = f32[16] convert(i)
  f2h.0 = f16[16] convert(f)
  h2f.0 = f32[16] convert(h)
  bf2d.0 = f64[16] convert(bf)
  hadd.0 = f16[16] add(h, h)
  u2i.0 = s32[16] convert(u)
  bitcast.0 = s32[16] bitcast-convert(f)
  iota.0 = s32[4,16] iota(), iota_dimension=1
  reverse.0 = f32[16] reverse(f), dimensions={0}
  slice.0 = f32[8] slice(f), slice={[2:10]}
  pad0 = f32[] constant(0)
  pad.0 = f32[20] pad(f, pad0), padding=2_2
  concat.0 = f32[32] concatenate(f, g), dimensions={0}
  dslice.0 = f32[4] dynamic-slice(f, k), dynamic_slice_sizes={4}
  upd = f32[4] slice(g), slice={[0:4]}
  dus.0 = f32[16] dynamic-update-slice(f, upd, k)
  bcast.0 = f32[8,16] broadcast(f), dimensions={1}
  reshape.0 = f32[4,4] reshape(f)
  transpose.0 = f32[4,4] transpose(reshape.0), dimensions={1,0}
  ROOT t = (f32[16], f32[16], f32[16], f32[16], s32[16]) tuple(abs.0, exp.0, dus.0, sel.0, f2i.0)
}
)";

TEST(ElementalCoverageTest, EveryElementalOpBecomesAcceptedPtx) {
  if (!std::filesystem::exists(DefaultLibdevicePath())) {
    GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath() << " (math needs it)";
  }
  testing::Emitted e = testing::Emit(kManyOps);
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  const std::string& ptx = e.kernels->ptx;

  const std::set<std::string> entries = testing::EntryNames(ptx);
  EXPECT_EQ(entries.size(), e.kernels->kernels.size());
  for (const char* name : {"exp_0", "tanh_0", "pow_0", "atan2_0", "dtanh_0", "f2i_0", "f2h_0", "bf2d_0", "iota_0",
                           "dus_0", "transpose_0", "erf_0"}) {
    EXPECT_TRUE(entries.contains(name)) << name;
  }
  EXPECT_EQ(ptx.find(".extern"), std::string::npos) << "unresolved calls";
  EXPECT_EQ(ptx.find("__nvvm_reflect"), std::string::npos);

  testing::ExpectPtxasAccepts(ptx, "many_ops");
}

}  // namespace
}  // namespace hmo::gpu
