// HloAliasAnalysis: which values must share a buffer (while carries,
// in-place updates, input/output aliases, conditional results), with buffer
// ids as XLA numbers them.

#include "hmo/analysis/hlo_alias_analysis.h"

#include <vector>

#include "analysis_test_util.h"
#include "gtest/gtest.h"

namespace hmo {
namespace {

using ::hmo::testing::Find;
using ::hmo::testing::ParseOrDie;
using ::hmo::testing::WhileLoopModule;

std::vector<HloValue::Id> ValueIds(const HloBuffer& buffer) {
  std::vector<HloValue::Id> ids;
  for (const HloValue* value : buffer.values()) ids.push_back(value->id());
  return ids;
}

std::unique_ptr<HloAliasAnalysis> RunAlias(const HloModule& module) {
  auto analysis = HloAliasAnalysis::Run(&module);
  EXPECT_TRUE(analysis.ok()) << analysis.status();
  return std::move(*analysis);
}

TEST(HloAliasAnalysisTest, WhileCarriesShareOneBufferPerIndex) {
  auto module = ParseOrDie(WhileLoopModule(/*scheduled=*/false));
  auto analysis = RunAlias(*module);
  // Values (SSA): 0 one, 1 inc, 2 bt{}, 3 c10, 4 lt, 5 zero, 6 x, 7 init{},
  // 8 cp{}, 9 bp{}, 10 cp{0}, 12 bp{0}, 14 w{}, 15 w{0}.
  ASSERT_EQ(analysis->buffers().size(), 6u);
  EXPECT_EQ(ValueIds(analysis->GetBuffer(0)), (std::vector<HloValue::Id>{0}));
  EXPECT_EQ(ValueIds(analysis->GetBuffer(1)), (std::vector<HloValue::Id>{1, 5, 10, 12, 15}));
  EXPECT_EQ(ValueIds(analysis->GetBuffer(2)), (std::vector<HloValue::Id>{2, 7, 8, 9, 14}));
  EXPECT_EQ(ValueIds(analysis->GetBuffer(3)), (std::vector<HloValue::Id>{3}));
  EXPECT_EQ(ValueIds(analysis->GetBuffer(4)), (std::vector<HloValue::Id>{4}));
  EXPECT_EQ(ValueIds(analysis->GetBuffer(5)), (std::vector<HloValue::Id>{6}));
  // The loop counter: init element, body parameter element, increment and
  // while result all in one buffer.
  const HloBuffer& counter = analysis->GetUniqueBufferAt(Find(*module, "inc"));
  EXPECT_EQ(&counter, &analysis->GetUniqueBufferAt(Find(*module, "zero")));
  EXPECT_EQ(&counter, &analysis->GetUniqueBufferAt(Find(*module, "w"), {0}));
  EXPECT_EQ(&counter, &analysis->GetUniqueBufferAt(Find(*module, "bi")));
  // x flows out of the module.
  EXPECT_TRUE(analysis->BufferLivesOut(analysis->GetUniqueBufferAt(Find(*module, "x"))));
  EXPECT_FALSE(analysis->BufferLivesOut(counter));
}

TEST(HloAliasAnalysisTest, DynamicUpdateSliceSharesWithOperandZero) {
  auto module = ParseOrDie(R"(
HloModule dus
ENTRY e {
  p = f32[8] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  d = f32[8] dynamic-update-slice(p, u, i)
  ROOT n = f32[8] negate(d)
}
)");
  auto analysis = RunAlias(*module);
  // Values p=0, u=1, i=2, d=3, n=4.
  ASSERT_EQ(analysis->buffers().size(), 4u);
  EXPECT_EQ(ValueIds(analysis->GetBuffer(0)), (std::vector<HloValue::Id>{0, 3}));
  EXPECT_EQ(&analysis->GetUniqueBufferAt(Find(*module, "d")),
            &analysis->GetUniqueBufferAt(Find(*module, "p")));
  EXPECT_NE(&analysis->GetUniqueBufferAt(Find(*module, "d")),
            &analysis->GetUniqueBufferAt(Find(*module, "u")));
}

TEST(HloAliasAnalysisTest, InputOutputAliasJoinsParameterAndResult) {
  auto module = ParseOrDie(R"(
HloModule io, input_output_alias={ {1}: (1, {}, may-alias) }
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  a = f32[4] negate(p0)
  b = f32[4] exponential(p1)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}
)");
  auto analysis = RunAlias(*module);
  const HloBuffer& b = analysis->GetUniqueBufferAt(Find(*module, "b"));
  EXPECT_EQ(&b, &analysis->GetUniqueBufferAt(Find(*module, "p1")));
  EXPECT_NE(&analysis->GetUniqueBufferAt(Find(*module, "a")),
            &analysis->GetUniqueBufferAt(Find(*module, "p0")));
  EXPECT_TRUE(analysis->BufferLivesOut(b));
}

TEST(HloAliasAnalysisTest, ConditionalBranchRootsShareWithResult) {
  auto module = ParseOrDie(R"(
HloModule cond
tb {
  tp = f32[4] parameter(0)
  ROOT tn = f32[4] negate(tp)
}
fb {
  fp = f32[4] parameter(0)
  ROOT fe = f32[4] exponential(fp)
}
ENTRY e {
  pred = pred[] parameter(0)
  a = f32[4] parameter(1)
  b = f32[4] parameter(2)
  ROOT c = f32[4] conditional(pred, a, b), true_computation=tb, false_computation=fb
}
)");
  auto analysis = RunAlias(*module);
  const HloBuffer& result = analysis->GetUniqueBufferAt(Find(*module, "c"));
  EXPECT_EQ(ValueIds(result), (std::vector<HloValue::Id>{0, 1, 5}));
  EXPECT_EQ(&result, &analysis->GetUniqueBufferAt(Find(*module, "tn")));
  EXPECT_EQ(&result, &analysis->GetUniqueBufferAt(Find(*module, "fe")));
}

TEST(HloAliasAnalysisTest, FusionOutputToOperandAliasing) {
  auto module = ParseOrDie(R"(
HloModule fused
fc {
  f0 = f32[4] parameter(0)
  f1 = f32[4] parameter(1)
  ROOT fa = f32[4] add(f0, f1)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  ROOT f = f32[4] fusion(p0, p1), kind=kLoop, calls=fc, output_to_operand_aliasing={ {}: (1, {}) }
}
)");
  auto analysis = RunAlias(*module);
  EXPECT_EQ(&analysis->GetUniqueBufferAt(Find(*module, "f")),
            &analysis->GetUniqueBufferAt(Find(*module, "p1")));
  EXPECT_NE(&analysis->GetUniqueBufferAt(Find(*module, "f")),
            &analysis->GetUniqueBufferAt(Find(*module, "p0")));
}

TEST(HloAliasAnalysisTest, DusFusionIsInPlaceThroughBitcast) {
  // The fusion's root is a bitcast of a dynamic-update-slice of parameter 0:
  // XLA's fusion in-place discovery pairs operand 0 with the output.
  auto module = ParseOrDie(R"(
HloModule dus_fusion
fc {
  f0 = f32[8] parameter(0)
  f1 = f32[2] parameter(1)
  f2 = s32[] parameter(2)
  d = f32[8] dynamic-update-slice(f0, f1, f2)
  ROOT b = f32[2,4] bitcast(d)
}
ENTRY e {
  p0 = f32[8] parameter(0)
  p1 = f32[2] parameter(1)
  p2 = s32[] parameter(2)
  ROOT f = f32[2,4] fusion(p0, p1, p2), kind=kLoop, calls=fc
}
)");
  auto pairs = AliasInfo().GetInPlaceInputOutputPairs(Find(*module, "f"));
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first, (HloOperandIndex{0, {}}));
  EXPECT_EQ(pairs[0].second, ShapeIndex{});
  auto analysis = RunAlias(*module);
  EXPECT_EQ(&analysis->GetUniqueBufferAt(Find(*module, "f")),
            &analysis->GetUniqueBufferAt(Find(*module, "p0")));
}

TEST(AliasInfoTest, DefaultInPlacePairs) {
  auto module = ParseOrDie(R"(
HloModule pairs
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[8] parameter(0)
  q = f32[8] parameter(1)
  idx = s32[2,1] parameter(2)
  upd = f32[2] parameter(3)
  upd2 = f32[2] parameter(4)
  s1 = f32[8] scatter(p, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  s2 = (f32[8], f32[8]) scatter(p, q, idx, upd, upd2), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ars = f32[8] all-reduce-start(q), to_apply=add
  ard = f32[8] all-reduce-done(ars)
  cc = (f32[8], f32[8]) custom-call(p, q), custom_call_target="foo", output_to_operand_aliasing={ {1}: (0, {}) }
  ROOT t = (f32[8], (f32[8], f32[8]), f32[8], (f32[8], f32[8])) tuple(s1, s2, ard, cc)
}
)");
  AliasInfo info;
  using Pairs = std::vector<std::pair<HloOperandIndex, ShapeIndex>>;
  EXPECT_EQ(info.GetInPlaceInputOutputPairs(Find(*module, "s1")),
            (Pairs{{HloOperandIndex{0, {}}, {}}}));
  EXPECT_EQ(info.GetInPlaceInputOutputPairs(Find(*module, "s2")),
            (Pairs{{HloOperandIndex{0, {}}, {0}}, {HloOperandIndex{1, {}}, {1}}}));
  EXPECT_EQ(info.GetInPlaceInputOutputPairs(Find(*module, "ars")),
            (Pairs{{HloOperandIndex{0, {}}, {}}}));
  EXPECT_EQ(info.GetInPlaceInputOutputPairs(Find(*module, "cc")),
            (Pairs{{HloOperandIndex{0, {}}, {1}}}));
  EXPECT_TRUE(info.GetInPlaceInputOutputPairs(Find(*module, "ard")).empty());
  EXPECT_TRUE(info.MustAlias(Find(*module, "p"), {}, Find(*module, "cc"), {1}));
  EXPECT_FALSE(info.MustAlias(Find(*module, "q"), {}, Find(*module, "cc"), {1}));
}

}  // namespace
}  // namespace hmo
