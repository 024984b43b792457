// while / conditional / call / fusion: called computation signatures against
// operands and results.

#include <gtest/gtest.h>

#include <string>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/verifier/hlo_verifier.h"
#include "verifier_test_util.h"

namespace hmo {
namespace {

using testing::FirstViolationIs;
using testing::Parse;
using testing::VerifiesOk;

// A while loop; `body_root` and `cond_root` are substituted.
std::string WhileModule(const std::string& body_root, const std::string& cond_root) {
  return R"(
HloModule w
body {
  bp = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(bp), index=0
  x = f32[4] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  )" + body_root + R"(
}
cond {
  cp = (s32[], f32[4]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  ten = s32[] constant(10)
  )" + cond_root + R"(
}
ENTRY main {
  z = s32[] constant(0)
  a = f32[4] parameter(0)
  init = (s32[], f32[4]) tuple(z, a)
  ROOT w = (s32[], f32[4]) while(init), condition=cond, body=body
})";
}

constexpr char kGoodBodyRoot[] = "ROOT t = (s32[], f32[4]) tuple(next, x)";
constexpr char kGoodCondRoot[] = "ROOT lt = pred[] compare(ci, ten), direction=LT";

TEST(ControlFlowVerifierTest, FusionLaysOutItsResultLikeItsRoot) {
  // A KV-cache update in place: the fusion's buffer is the cache, written in
  // the root's layout. A fusion that claims the transposed layout would be
  // read back wrongly, so it is refused even without layout checks.
  constexpr char kDecode[] = R"(
HloModule m

update {
  cache = f32[8,4]{1,0} parameter(0)
  row = f32[1,4]{1,0} parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT u = f32[8,4]{1,0} dynamic-update-slice(cache, row, i, z)
}

ENTRY main {
  cache = f32[8,4]{1,0} parameter(0)
  row = f32[1,4]{1,0} parameter(1)
  i = s32[] parameter(2)
  ROOT f = f32[8,4]{LAYOUT} fusion(cache, row, i), kind=kLoop, calls=update
})";
  std::string same = kDecode;
  same.replace(same.find("LAYOUT"), 6, "1,0");
  auto ok = Parse(same);
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(VerifiesOk(*ok));
  std::string transposed = kDecode;
  transposed.replace(transposed.find("LAYOUT"), 6, "0,1");
  auto bad = Parse(transposed);
  ASSERT_NE(bad, nullptr);
  EXPECT_TRUE(FirstViolationIs(*bad, {"fusion-layout", "f", "main",
                                      "fused root (u) lays out f32[8,4]{1,0} but the fusion is "
                                      "f32[8,4]{0,1}"}));
}

TEST(ControlFlowVerifierTest, WellFormedWhile) {
  auto m = Parse(WhileModule(kGoodBodyRoot, kGoodCondRoot));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST(ControlFlowVerifierTest, WhileBodyRootMustMatch) {
  auto m = Parse(WhileModule("ROOT t = (s32[], f32[4], s32[]) tuple(next, x, i)", kGoodCondRoot));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"while", "w", "main",
                                    "while body body root shape (s32[], f32[4], s32[]) does not "
                                    "match the while shape (s32[], f32[4])"}));
}

TEST(ControlFlowVerifierTest, WhileConditionReturnsPred) {
  auto m = Parse(WhileModule(kGoodBodyRoot, "ROOT s = s32[] add(ci, ten)"));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"while", "w", "main",
                                    "while condition cond must return pred[], returns s32[]"}));
}

TEST(ControlFlowVerifierTest, WhileShapeMatchesInit) {
  auto m = Parse(R"(
HloModule w
body {
  bp = (s32[], f32[4]) parameter(0)
  ROOT r = (s32[], f32[4]) copy(bp)
}
cond {
  cp = (s32[], f32[4]) parameter(0)
  ROOT t = pred[] constant(true)
}
ENTRY main {
  z = s32[] constant(0)
  a = f32[5] parameter(0)
  init = (s32[], f32[5]) tuple(z, a)
  ROOT w = (s32[], f32[4]) while(init), condition=cond, body=body
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"while", "w", "main",
                                    "while shape (s32[], f32[4]) does not match its init operand "
                                    "shape (s32[], f32[5])"}));
}

// attention_model.hlo in miniature: the body's root layout differs from the
// while's layout. XLA accepts that only in layout-insensitive mode.
TEST(ControlFlowVerifierTest, WhileLayoutMismatchOnlyRejectedWhenLayoutSensitive) {
  // The while (and its init) use a tiled layout; the body root keeps {0}.
  auto m = Parse(R"(
HloModule w
body {
  bp = (s32[], f32[4]{0:T(128)}) parameter(0)
  i = s32[] get-tuple-element(bp), index=0
  x = f32[4]{0} get-tuple-element(bp), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[4]{0}) tuple(next, x)
}
cond {
  cp = (s32[], f32[4]{0:T(128)}) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(ci, ten), direction=LT
}
ENTRY main {
  z = s32[] constant(0)
  a = f32[4]{0:T(128)} parameter(0)
  init = (s32[], f32[4]{0:T(128)}) tuple(z, a)
  ROOT w = (s32[], f32[4]{0:T(128)}) while(init), condition=cond, body=body
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
  HloVerifierOptions sensitive;
  sensitive.layout_sensitive = true;
  EXPECT_TRUE(testing::HasViolation(*m, "layout", "while body body root shape", sensitive));
}

constexpr char kConditionalModule[] = R"(
HloModule c
then_branch {
  tp = (f32[4]) parameter(0)
  tx = f32[4] get-tuple-element(tp), index=0
  ROOT te = f32[4] exponential(tx)
}
else_branch {
  ep = (f32[4]) parameter(0)
  ex = f32[4] get-tuple-element(ep), index=0
  ROOT el = f32[4] log(ex)
}
ENTRY main {
  pr = PRED_TYPE parameter(0)
  a = f32[4] parameter(1)
  t = (f32[4]) tuple(a)
  ROOT cnd = RESULT conditional(pr, t, t), true_computation=then_branch, false_computation=else_branch
})";

std::string ConditionalModule(const std::string& pred_type, const std::string& result) {
  std::string text = kConditionalModule;
  text.replace(text.find("PRED_TYPE"), 9, pred_type);
  text.replace(text.find("RESULT"), 6, result);
  return text;
}

TEST(ControlFlowVerifierTest, WellFormedConditional) {
  auto m = Parse(ConditionalModule("pred[]", "f32[4]"));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
  auto indexed = Parse(R"(
HloModule c
b0 {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
b1 {
  p = () parameter(0)
  ROOT z = f32[4] constant({0, 0, 0, 0})
}
b2 {
  p = f32[] parameter(0)
  ROOT b = f32[4] broadcast(p), dimensions={}
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[4] parameter(1)
  e = () tuple()
  s = f32[] parameter(2)
  ROOT cnd = f32[4] conditional(i, a, e, s), branch_computations={b0, b1, b2}
})");
  ASSERT_NE(indexed, nullptr);
  EXPECT_TRUE(VerifiesOk(*indexed));
}

TEST(ControlFlowVerifierTest, ConditionalBranchIndexType) {
  // The parser refuses such text as XLA's does; a pass could still build it.
  EXPECT_FALSE(ParseHloModule(ConditionalModule("f32[]", "f32[4]"), "test.hlo").ok());
  auto m = Parse(ConditionalModule("pred[]", "f32[4]"));
  ASSERT_NE(m, nullptr);
  HloInstruction* index = m->entry_computation()->root_instruction()->mutable_operand(0);
  *index->mutable_shape() = Shape(PrimitiveType::F32, {});
  EXPECT_TRUE(FirstViolationIs(*m, {"conditional", "cnd", "main",
                                    "conditional branch index must be pred[] or s32[], got f32[]"}));
}

TEST(ControlFlowVerifierTest, ConditionalBranchRootMatchesResult) {
  auto m = Parse(ConditionalModule("pred[]", "f32[5]"));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"conditional", "cnd", "main",
                                    "conditional branch 0 (then_branch) root shape f32[4] does not "
                                    "match the conditional shape f32[5]"}));
}

TEST(ControlFlowVerifierTest, ConditionalBranchParameterMatchesOperand) {
  auto m = Parse(R"(
HloModule c
b0 {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
b1 {
  p = f32[3] parameter(0)
  ROOT z = f32[4] constant({0, 0, 0, 0})
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[4] parameter(1)
  ROOT cnd = f32[4] conditional(i, a, a), branch_computations={b0, b1}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"conditional", "cnd", "main",
                                    "conditional branch 1 (b1) parameter shape f32[3] does not "
                                    "match its operand 2 shape f32[4]"}));
}

TEST(ControlFlowVerifierTest, CallSignature) {
  auto m = Parse(R"(
HloModule c
callee {
  p0 = f32[4] parameter(0)
  p1 = s32[] parameter(1)
  ROOT n = f32[4] negate(p0)
}
ENTRY main {
  a = f32[4] parameter(0)
  i = s32[] parameter(1)
  ok = f32[4] call(a, i), to_apply=callee
  ROOT c = f32[4] call(a, a), to_apply=callee
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"call", "c", "main",
                                    "callee callee parameter 1 shape s32[] does not match the "
                                    "operand shape f32[4]"}));
}

TEST(ControlFlowVerifierTest, CallRootMatchesResult) {
  auto m = Parse(R"(
HloModule c
callee {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
}
ENTRY main {
  a = f32[4] parameter(0)
  ROOT c = f32[2] call(a), to_apply=callee
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"call", "c", "main",
                                    "callee callee root shape f32[4] does not match the call shape "
                                    "f32[2]"}));
}

TEST(ControlFlowVerifierTest, CallParameterCount) {
  auto m = Parse(R"(
HloModule c
callee {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
}
ENTRY main {
  a = f32[4] parameter(0)
  ROOT c = f32[4] call(a, a), to_apply=callee
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"call", "c", "main",
                                    "callee callee takes 1 parameters but the call has 2 operands"}));
}

TEST(ControlFlowVerifierTest, FusionParametersAndRoot) {
  auto ok = Parse(R"(
HloModule f
fused {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT m = f32[4] multiply(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT fu = f32[4] fusion(x, y), kind=kLoop, calls=fused
})");
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(VerifiesOk(*ok));

  auto bad_param = Parse(R"(
HloModule f
fused {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT m = f32[4] multiply(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  y = s32[4] parameter(1)
  ROOT fu = f32[4] fusion(x, y), kind=kLoop, calls=fused
})");
  ASSERT_NE(bad_param, nullptr);
  EXPECT_TRUE(FirstViolationIs(*bad_param, {"fusion", "fu", "main",
                                            "fused parameter 1 shape f32[4] does not match the "
                                            "operand shape s32[4]"}));

  auto bad_root = Parse(R"(
HloModule f
fused {
  a = f32[4] parameter(0)
  ROOT m = f32[4] negate(a)
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT fu = (f32[4]) fusion(x), kind=kLoop, calls=fused
})");
  ASSERT_NE(bad_root, nullptr);
  EXPECT_TRUE(FirstViolationIs(*bad_root, {"fusion", "fu", "main",
                                           "fused root (m) shape f32[4] does not match the fusion "
                                           "shape (f32[4])"}));
}

TEST(ControlFlowVerifierTest, FusionParameterCount) {
  auto m = Parse(R"(
HloModule f
fused {
  a = f32[4] parameter(0)
  ROOT m = f32[4] negate(a)
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT fu = f32[4] fusion(x, x), kind=kLoop, calls=fused
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"fusion", "fu", "main",
                                    "fused computation fused takes 1 parameters but the fusion has 2 "
                                    "operands"}));
}

TEST(ControlFlowVerifierTest, FusionOutputToOperandAliasing) {
  auto m = Parse(R"(
HloModule f
fused {
  a = f32[4] parameter(0)
  b = f32[2] parameter(1)
  ROOT m = f32[4] negate(a)
}
fused.1 {
  a = f32[4] parameter(0)
  b = f32[2] parameter(1)
  ROOT m = f32[4] negate(a)
}
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[2] parameter(1)
  ok = f32[4] fusion(x, y), kind=kLoop, calls=fused, output_to_operand_aliasing={{}: (0, {})}
  ROOT fu = f32[4] fusion(x, y), kind=kLoop, calls=fused.1, output_to_operand_aliasing={{}: (1, {})}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"output-operand-aliasing", "fu", "main",
                                    "output f32[4] and operand f32[2] have different shapes"}));
}

}  // namespace
}  // namespace hmo
