// HloDataflowAnalysis: which instructions define values, value sets at each
// position, positions, uses and value ids, in both forms. Expected values are
// worked out by hand from XLA's rules (see hlo_dataflow_analysis.h).

#include "hmo/analysis/hlo_dataflow_analysis.h"

#include <vector>

#include "analysis_test_util.h"
#include "gtest/gtest.h"

namespace hmo {
namespace {

using ::hmo::testing::Find;
using ::hmo::testing::ParseOrDie;
using ::hmo::testing::WhileLoopModule;

std::vector<HloValue::Id> Ids(const HloValueSet& set) {
  std::vector<HloValue::Id> ids;
  for (const HloValue* value : set.values()) ids.push_back(value->id());
  return ids;
}

std::vector<HloValue::Id> AllIds(const HloDataflowAnalysis& analysis) {
  std::vector<HloValue::Id> ids;
  for (const HloValue* value : analysis.values()) ids.push_back(value->id());
  return ids;
}

std::unique_ptr<HloDataflowAnalysis> RunDataflow(const HloModule& module, bool ssa,
                                                 bool bitcast_defines_value = false) {
  HloDataflowAnalysis::Options options;
  options.ssa_form = ssa;
  options.bitcast_defines_value = bitcast_defines_value;
  auto analysis = HloDataflowAnalysis::Run(module, options);
  EXPECT_TRUE(analysis.ok()) << analysis.status();
  return std::move(*analysis);
}

constexpr char kTupleModule[] = R"(
HloModule tuples
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  t = (f32[4], f32[4]) tuple(p0, p1)
  g = f32[4] get-tuple-element(t), index=1
  ROOT n = f32[4] negate(g)
}
)";

TEST(HloDataflowAnalysisTest, TupleDefinesOnlyTopLevelAndGteForwards) {
  auto module = ParseOrDie(kTupleModule);
  auto analysis = RunDataflow(*module, /*ssa=*/false);
  // Post order p0, p1, t, g, n; g defines nothing; t only {}.
  EXPECT_EQ(AllIds(*analysis), (std::vector<HloValue::Id>{0, 1, 2, 3}));
  HloInstruction* p1 = Find(*module, "p1");
  HloInstruction* t = Find(*module, "t");
  HloInstruction* g = Find(*module, "g");
  HloInstruction* n = Find(*module, "n");
  EXPECT_TRUE(analysis->ValueIsDefinedAt(t, {}));
  EXPECT_FALSE(analysis->ValueIsDefinedAt(t, {1}));
  EXPECT_FALSE(analysis->ValueIsDefinedAt(g));
  EXPECT_EQ(analysis->GetValueDefinedAt(t).id(), 2);
  EXPECT_EQ(Ids(analysis->GetValueSet(t, {0})), (std::vector<HloValue::Id>{0}));
  EXPECT_EQ(Ids(analysis->GetValueSet(g)), (std::vector<HloValue::Id>{1}));

  const HloValue& v1 = analysis->GetValueDefinedAt(p1);
  ASSERT_EQ(v1.positions().size(), 3u);
  EXPECT_EQ(v1.positions()[0], (HloPosition{p1, {}}));
  EXPECT_EQ(v1.positions()[1], (HloPosition{t, {1}}));
  EXPECT_EQ(v1.positions()[2], (HloPosition{g, {}}));
  // The tuple and the get-tuple-element forward it; only negate reads it.
  ASSERT_EQ(v1.GetUses().size(), 1u);
  EXPECT_EQ(v1.GetUses()[0], (HloUse{n, 0, {}}));
  // p0 is forwarded into the tuple and never read.
  EXPECT_TRUE(analysis->GetValueDefinedAt(Find(*module, "p0")).GetUses().empty());
  // The tuple table is read by the get-tuple-element.
  ASSERT_EQ(analysis->GetValueDefinedAt(t).GetUses().size(), 1u);
  EXPECT_EQ(analysis->GetValueDefinedAt(t).GetUses()[0], (HloUse{g, 0, {}}));
  EXPECT_TRUE(analysis->GetValueDefinedAt(n).live_out_of_module());
  EXPECT_FALSE(v1.live_out_of_module());
}

TEST(HloDataflowAnalysisTest, WhileNonSsaMergesInitAndBackEdge) {
  auto module = ParseOrDie(WhileLoopModule(/*scheduled=*/false));
  auto analysis = RunDataflow(*module, /*ssa=*/false);
  // Computations in XLA's post order: body, cond, e.
  // body: one=0, inc=1, bt{}=2; cond: c10=3, lt=4; e: zero=5, x=6, init{}=7.
  EXPECT_EQ(AllIds(*analysis), (std::vector<HloValue::Id>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(analysis->GetValueDefinedAt(Find(*module, "inc")).id(), 1);
  EXPECT_EQ(analysis->GetValueDefinedAt(Find(*module, "x")).id(), 6);
  HloInstruction* w = Find(*module, "w");
  HloInstruction* bp = Find(*module, "bp");
  HloInstruction* cp = Find(*module, "cp");
  EXPECT_EQ(Ids(analysis->GetValueSet(w, {})), (std::vector<HloValue::Id>{2, 7}));
  EXPECT_EQ(Ids(analysis->GetValueSet(w, {0})), (std::vector<HloValue::Id>{1, 5}));
  EXPECT_EQ(Ids(analysis->GetValueSet(w, {1})), (std::vector<HloValue::Id>{6}));
  EXPECT_EQ(Ids(analysis->GetValueSet(bp, {0})), (std::vector<HloValue::Id>{1, 5}));
  EXPECT_EQ(Ids(analysis->GetValueSet(cp, {})), (std::vector<HloValue::Id>{2, 7}));
  EXPECT_EQ(Ids(analysis->GetValueSet(Find(*module, "r"))), (std::vector<HloValue::Id>{6}));
  EXPECT_TRUE(analysis->GetValueDefinedAt(Find(*module, "x")).live_out_of_module());
  // The while reads its init: a use at {0} of zero's value.
  const HloValue& zero = analysis->GetValueDefinedAt(Find(*module, "zero"));
  bool while_use = false;
  for (const HloUse& use : zero.GetUses()) {
    while_use |= use.instruction == w && use.operand_index == ShapeIndex{0};
  }
  EXPECT_TRUE(while_use);
}

TEST(HloDataflowAnalysisTest, WhileSsaCreatesAndOptimizesPhis) {
  auto module = ParseOrDie(WhileLoopModule(/*scheduled=*/false));
  auto analysis = RunDataflow(*module, /*ssa=*/true);
  // Worked out by replaying XLA's worklist: phis 8 cp{}, 9 bp{}, 10 cp{0},
  // 11 cp{1}, 12 bp{0}, 13 bp{1}, 14 w{}, 15 w{0}, 16 w{1}; the phi graph
  // folds 11, 13 and 16 (they only merge x with themselves) into x = 6.
  EXPECT_EQ(AllIds(*analysis),
            (std::vector<HloValue::Id>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15}));
  HloInstruction* w = Find(*module, "w");
  HloInstruction* bp = Find(*module, "bp");
  HloInstruction* cp = Find(*module, "cp");
  EXPECT_EQ(Ids(analysis->GetValueSet(cp, {})), (std::vector<HloValue::Id>{8}));
  EXPECT_EQ(Ids(analysis->GetValueSet(bp, {})), (std::vector<HloValue::Id>{9}));
  EXPECT_EQ(Ids(analysis->GetValueSet(cp, {0})), (std::vector<HloValue::Id>{10}));
  EXPECT_EQ(Ids(analysis->GetValueSet(bp, {0})), (std::vector<HloValue::Id>{12}));
  EXPECT_EQ(Ids(analysis->GetValueSet(w, {})), (std::vector<HloValue::Id>{14}));
  EXPECT_EQ(Ids(analysis->GetValueSet(w, {0})), (std::vector<HloValue::Id>{15}));
  for (const ShapeIndex& index : {ShapeIndex{}, ShapeIndex{0}}) {
    EXPECT_TRUE(analysis->GetValueDefinedAt(w, index).is_phi());
  }
  // The loop-invariant element stays x everywhere.
  EXPECT_EQ(Ids(analysis->GetValueSet(w, {1})), (std::vector<HloValue::Id>{6}));
  EXPECT_EQ(Ids(analysis->GetValueSet(bp, {1})), (std::vector<HloValue::Id>{6}));
  EXPECT_EQ(Ids(analysis->GetValueSet(Find(*module, "bx"))), (std::vector<HloValue::Id>{6}));
}

constexpr char kConditionalModule[] = R"(
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
)";

TEST(HloDataflowAnalysisTest, ConditionalUnionOfBranchRootsAndBranchParameters) {
  auto module = ParseOrDie(kConditionalModule);
  auto analysis = RunDataflow(*module, /*ssa=*/false);
  // tb: tn=0; fb: fe=1; e: pred=2, a=3, b=4.
  EXPECT_EQ(AllIds(*analysis), (std::vector<HloValue::Id>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Ids(analysis->GetValueSet(Find(*module, "c"))), (std::vector<HloValue::Id>{0, 1}));
  EXPECT_EQ(Ids(analysis->GetValueSet(Find(*module, "tp"))), (std::vector<HloValue::Id>{3}));
  EXPECT_EQ(Ids(analysis->GetValueSet(Find(*module, "fp"))), (std::vector<HloValue::Id>{4}));

  auto ssa = RunDataflow(*module, /*ssa=*/true);
  // The branch parameters get their single input; the conditional a phi.
  EXPECT_EQ(AllIds(*ssa), (std::vector<HloValue::Id>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(ssa->GetValueDefinedAt(Find(*module, "c")).is_phi());
  EXPECT_EQ(ssa->GetValueDefinedAt(Find(*module, "c")).id(), 5);
}

constexpr char kBitcastModule[] = R"(
HloModule bitcasts
ENTRY e {
  p = f32[2,2] parameter(0)
  b = f32[4] bitcast(p)
  ROOT n = f32[4] negate(b)
}
)";

TEST(HloDataflowAnalysisTest, BitcastForwardsUnlessItDefinesValues) {
  auto module = ParseOrDie(kBitcastModule);
  auto forwarding = RunDataflow(*module, false, /*bitcast_defines_value=*/false);
  EXPECT_EQ(forwarding->value_count(), 2);
  EXPECT_FALSE(forwarding->ValueIsDefinedAt(Find(*module, "b")));
  EXPECT_EQ(Ids(forwarding->GetValueSet(Find(*module, "b"))), (std::vector<HloValue::Id>{0}));
  const HloValue& p = forwarding->GetValueDefinedAt(Find(*module, "p"));
  ASSERT_EQ(p.positions().size(), 2u);
  // The bitcast reads p; so does negate, through the bitcast position.
  EXPECT_EQ(p.GetUses().size(), 2u);

  auto defining = RunDataflow(*module, false, /*bitcast_defines_value=*/true);
  EXPECT_EQ(defining->value_count(), 3);
  EXPECT_EQ(defining->GetValueDefinedAt(Find(*module, "b")).id(), 1);
}

constexpr char kCallModule[] = R"(
HloModule calls
callee {
  cp = f32[4] parameter(0)
  ROOT cn = f32[4] negate(cp)
}
ENTRY e {
  a = f32[4] parameter(0)
  ROOT c = f32[4] call(a), to_apply=callee
}
)";

TEST(HloDataflowAnalysisTest, CallForwardsOperandsAndRoot) {
  auto module = ParseOrDie(kCallModule);
  auto analysis = RunDataflow(*module, false);
  // callee: cn=0 (its parameter receives the caller's value); e: a=1.
  EXPECT_EQ(AllIds(*analysis), (std::vector<HloValue::Id>{0, 1}));
  HloInstruction* c = Find(*module, "c");
  HloInstruction* cn = Find(*module, "cn");
  EXPECT_EQ(Ids(analysis->GetValueSet(c)), (std::vector<HloValue::Id>{0}));
  EXPECT_EQ(Ids(analysis->GetValueSet(Find(*module, "cp"))), (std::vector<HloValue::Id>{1}));
  const HloValue& a = analysis->GetValueDefinedAt(Find(*module, "a"));
  // The call counts as a use, and so does the callee's negate.
  ASSERT_EQ(a.GetUses().size(), 2u);
  EXPECT_EQ(a.GetUses()[0], (HloUse{c, 0, {}}));
  EXPECT_EQ(a.GetUses()[1], (HloUse{cn, 0, {}}));
  EXPECT_TRUE(analysis->GetValueDefinedAt(cn).live_out_of_module());
}

constexpr char kCopyStartModule[] = R"(
HloModule copies
ENTRY e {
  p = f32[4] parameter(0)
  cs = (f32[4], f32[4], u32[]) copy-start(p)
  ROOT cd = f32[4] copy-done(cs)
}
)";

TEST(HloDataflowAnalysisTest, CopyStartDefinesDestinationAndCopyDoneForwardsIt) {
  auto module = ParseOrDie(kCopyStartModule);
  auto analysis = RunDataflow(*module, false);
  HloInstruction* cs = Find(*module, "cs");
  // p=0, then copy-start's {}, {0}, {2}.
  EXPECT_EQ(analysis->GetValueDefinedAt(cs, {}).id(), 1);
  EXPECT_EQ(analysis->GetValueDefinedAt(cs, {0}).id(), 2);
  EXPECT_EQ(analysis->GetValueDefinedAt(cs, {2}).id(), 3);
  EXPECT_EQ(Ids(analysis->GetValueSet(cs, {1})), (std::vector<HloValue::Id>{0}));
  EXPECT_EQ(Ids(analysis->GetValueSet(Find(*module, "cd"))), (std::vector<HloValue::Id>{2}));
}

constexpr char kOptBarrierModule[] = R"(
HloModule barrier
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  t = (f32[4], f32[4]) tuple(p, q)
  b = (f32[4], f32[4]) opt-barrier(t)
  ROOT g = f32[4] get-tuple-element(b), index=0
}
)";

TEST(HloDataflowAnalysisTest, OptBarrierForwardsEveryIndex) {
  auto module = ParseOrDie(kOptBarrierModule);
  auto analysis = RunDataflow(*module, false);
  HloInstruction* b = Find(*module, "b");
  HloInstruction* t = Find(*module, "t");
  EXPECT_FALSE(analysis->ValueIsDefinedAt(b, {}));
  EXPECT_EQ(&analysis->GetUniqueValueAt(b, {}), &analysis->GetValueDefinedAt(t, {}));
  EXPECT_EQ(&analysis->GetUniqueValueAt(Find(*module, "g")),
            &analysis->GetValueDefinedAt(Find(*module, "p")));
}

}  // namespace
}  // namespace hmo
