// CanShareOperandBufferWithUser: one test per rule of XLA's list
// (hlo_dataflow_analysis.h).

#include <memory>

#include "analysis_test_util.h"
#include "gtest/gtest.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"

namespace hmo {
namespace {

using ::hmo::testing::Find;
using ::hmo::testing::ParseOrDie;

class CanShareTest : public ::testing::Test {
 protected:
  void Load(std::string_view text) {
    module_ = ParseOrDie(text);
    ASSERT_NE(module_, nullptr);
    auto analysis = HloDataflowAnalysis::Run(*module_);
    ASSERT_TRUE(analysis.ok()) << analysis.status();
    analysis_ = std::move(*analysis);
  }
  bool CanShare(std::string_view operand, std::string_view user, ShapeIndex operand_index = {},
                ShapeIndex user_index = {}) {
    return analysis_->CanShareOperandBufferWithUser(Find(*module_, operand), operand_index,
                                                    Find(*module_, user), user_index);
  }
  std::unique_ptr<HloModule> module_;
  std::unique_ptr<HloDataflowAnalysis> analysis_;
};

TEST_F(CanShareTest, ElementwiseYesConstantNoShapeChangeNo) {
  Load(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  k = f32[4] constant({1, 2, 3, 4})
  add = f32[4] add(p0, p1)
  addk = f32[4] add(k, add)
  bc = f32[2,4] broadcast(addk), dimensions={1}
  cp = f32[2,4]{0,1} copy(bc)
  ROOT r = (f32[2,4]{0,1}, f32[4]) tuple(cp, add)
}
)");
  EXPECT_TRUE(CanShare("p0", "add"));
  EXPECT_TRUE(CanShare("p1", "add"));
  EXPECT_FALSE(CanShare("k", "addk"));   // rule 2: constant operand
  EXPECT_TRUE(CanShare("add", "addk"));  // rule 12: elementwise
  EXPECT_FALSE(CanShare("addk", "bc"));  // rule 6: shapes differ
  EXPECT_FALSE(CanShare("bc", "cp"));    // rule 6: layouts differ
}

TEST_F(CanShareTest, LoopFusionNeedsElementwiseUsesOfTheParameter) {
  Load(R"(
HloModule m
f_elementwise {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  s = f32[4] add(a, b)
  ROOT n = f32[4] negate(s)
}
f_reverse {
  ra = f32[4] parameter(0)
  rb = f32[4] parameter(1)
  rv = f32[4] reverse(ra), dimensions={0}
  ROOT rs = f32[4] add(rv, rb)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  f1 = f32[4] fusion(p0, p1), kind=kLoop, calls=f_elementwise
  f2 = f32[4] fusion(f1, p1), kind=kLoop, calls=f_reverse
  ROOT r = (f32[4], f32[4]) tuple(f1, f2)
}
)");
  EXPECT_TRUE(CanShare("p0", "f1"));
  EXPECT_FALSE(CanShare("f1", "f2"));  // reverse reads other elements
  EXPECT_TRUE(CanShare("p1", "f2"));   // only the elementwise add reads it
}

TEST_F(CanShareTest, OutputFusionAddendOfDot) {
  Load(R"(
HloModule m
f_out {
  o0 = f32[2,2] parameter(0)
  o1 = f32[2,2] parameter(1)
  o2 = f32[2,2] parameter(2)
  d = f32[2,2] dot(o0, o1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT a = f32[2,2] add(d, o2)
}
ENTRY e {
  p0 = f32[2,2] parameter(0)
  p1 = f32[2,2] parameter(1)
  p2 = f32[2,2] parameter(2)
  ROOT f = f32[2,2] fusion(p0, p1, p2), kind=kOutput, calls=f_out
}
)");
  EXPECT_TRUE(CanShare("p2", "f"));   // the addend: single use, the add's other operand
  EXPECT_FALSE(CanShare("p0", "f"));  // read by the dot
}

TEST_F(CanShareTest, WhileAndDynamicUpdateSliceAndScatter) {
  Load(R"(
HloModule m
cond {
  cp = f32[4] parameter(0)
  ROOT t = pred[] constant(false)
}
body {
  bp = f32[4] parameter(0)
  ROOT bn = f32[4] negate(bp)
}
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  u = f32[2] parameter(2)
  i = s32[] parameter(3)
  idx = s32[2,1] parameter(4)
  w = f32[4] while(p), condition=cond, body=body
  d = f32[4] dynamic-update-slice(q, u, i)
  n = f32[4] negate(d)
  sc = f32[4] scatter(n, idx, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT r = (f32[4], f32[4]) tuple(w, sc)
}
)");
  EXPECT_TRUE(CanShare("p", "w"));    // rule 8
  EXPECT_TRUE(CanShare("q", "d"));    // rule 4: in-place pair
  EXPECT_FALSE(CanShare("u", "d"));   // the update has another shape
  EXPECT_TRUE(CanShare("n", "sc"));   // in-place pair of scatter
}

TEST_F(CanShareTest, SortSharesOnlyTheMatchingElement) {
  Load(R"(
HloModule m
cmp1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
cmp2 {
  a0 = f32[] parameter(0)
  b0 = f32[] parameter(1)
  a1 = f32[] parameter(2)
  b1 = f32[] parameter(3)
  ROOT lt2 = pred[] compare(a0, b0), direction=LT
}
ENTRY e {
  k = f32[4] parameter(0)
  v = f32[4] parameter(1)
  kn = f32[4] negate(k)
  vn = f32[4] negate(v)
  s1 = f32[4] sort(kn), dimensions={0}, to_apply=cmp1
  s2 = (f32[4], f32[4]) sort(kn, vn), dimensions={0}, to_apply=cmp2
  ROOT r = (f32[4], (f32[4], f32[4])) tuple(s1, s2)
}
)");
  // kn has two users (s1 and s2): no sharing at all.
  EXPECT_FALSE(CanShare("kn", "s1"));
  EXPECT_TRUE(CanShare("vn", "s2", {}, {1}));
  EXPECT_FALSE(CanShare("vn", "s2", {}, {0}));
}

TEST_F(CanShareTest, SingleOperandSort) {
  Load(R"(
HloModule m
cmp1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = f32[4] parameter(0)
  kn = f32[4] negate(k)
  ROOT s = f32[4] sort(kn), dimensions={0}, to_apply=cmp1
}
)");
  EXPECT_TRUE(CanShare("kn", "s"));
}

TEST_F(CanShareTest, CallWithElementwiseCalleeRoot) {
  Load(R"(
HloModule m
callee {
  cp = f32[4] parameter(0)
  ROOT cn = f32[4] negate(cp)
}
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] exponential(p)
  b = f32[4] exponential(p)
  c1 = f32[4] call(a), to_apply=callee
  c2 = f32[4] call(b), to_apply=callee
  ROOT r = (f32[4], f32[4], f32[4]) tuple(c1, c2, b)
}
)");
  // a's only uses are the call and the callee's negate.
  EXPECT_TRUE(CanShare("a", "c1"));
  // b is also used by the root tuple.
  EXPECT_FALSE(CanShare("b", "c2"));
}

TEST_F(CanShareTest, TriangularSolveSharesOperandOne) {
  Load(R"(
HloModule m
ENTRY e {
  a = f32[4,4] parameter(0)
  b = f32[4,4] parameter(1)
  ROOT t = f32[4,4] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE, unit_diagonal=false
}
)");
  EXPECT_TRUE(CanShare("b", "t"));
  EXPECT_FALSE(CanShare("a", "t"));
}

TEST_F(CanShareTest, CublasLtWorkspaceIsNeverShared) {
  Load(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT g = (f32[4], f32[4]) custom-call(a, b), custom_call_target="__cublas$lt$matmul"
}
)");
  EXPECT_FALSE(CanShare("a", "g", {}, {1}));
}

}  // namespace
}  // namespace hmo
