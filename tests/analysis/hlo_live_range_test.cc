// HloLiveRange on a small while loop: flattening order (condition, then body,
// before the while), computation spans, every value's [start, end] and the
// chaining of one buffer's values. Worked out by hand (hlo_live_range.h).

#include "hmo/analysis/hlo_live_range.h"

#include "analysis_test_util.h"
#include "gtest/gtest.h"

namespace hmo {
namespace {

using ::hmo::testing::Find;
using ::hmo::testing::ParseOrDie;
using ::hmo::testing::WhileLoopModule;

class HloLiveRangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = ParseOrDie(WhileLoopModule(/*scheduled=*/true));
    ASSERT_NE(module_, nullptr);
    ASSERT_TRUE(module_->has_schedule());
    auto alias = HloAliasAnalysis::Run(module_.get());
    ASSERT_TRUE(alias.ok()) << alias.status();
    alias_ = std::move(*alias);
    auto live_range =
        HloLiveRange::Run(module_->schedule(), *alias_, module_->entry_computation());
    ASSERT_TRUE(live_range.ok()) << live_range.status();
    live_range_ = std::move(*live_range);
  }
  std::pair<int64_t, int64_t> Range(std::string_view name, ShapeIndex index = {}) {
    const HloValue& value =
        alias_->dataflow_analysis().GetValueDefinedAt(Find(*module_, name), index);
    const auto& bound = live_range_->buffer_live_ranges().at(&value);
    return {bound.start, bound.end};
  }
  std::unique_ptr<HloModule> module_;
  std::unique_ptr<HloAliasAnalysis> alias_;
  std::unique_ptr<HloLiveRange> live_range_;
};

TEST_F(HloLiveRangeTest, FlattensConditionThenBodyBeforeTheWhile) {
  std::vector<std::string> names;
  for (const HloInstruction* instruction : live_range_->flattened_instruction_sequence()) {
    names.push_back(instruction->name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"zero", "x", "init", "cp", "ci", "c10", "lt", "bp",
                                             "bi", "bx", "one", "inc", "bt", "w", "r"}));
  EXPECT_EQ(live_range_->schedule_end_time(), 15);
  const auto& spans = live_range_->computation_span_times();
  EXPECT_EQ(spans.at(module_->GetComputationWithName("cond")).start, 3);
  EXPECT_EQ(spans.at(module_->GetComputationWithName("cond")).end, 7);
  EXPECT_EQ(spans.at(module_->GetComputationWithName("body")).start, 7);
  EXPECT_EQ(spans.at(module_->GetComputationWithName("body")).end, 13);
  EXPECT_TRUE(live_range_->total_order_scheduled());
}

TEST_F(HloLiveRangeTest, ValueRanges) {
  // Read-only entry parameter: the whole program.
  EXPECT_EQ(Range("x"), std::make_pair(int64_t{0}, int64_t{15}));
  // The loop counter's buffer {zero, cp{0}, bp{0}, inc, w{0}} becomes a
  // chain [0,3] [3,7] [7,11] [11,13] [13,13]. Before normalization zero
  // ended at 7 (its use by the while moves to the body parameter).
  EXPECT_EQ(Range("zero"), std::make_pair(int64_t{0}, int64_t{3}));
  EXPECT_EQ(Range("cp", {0}), std::make_pair(int64_t{3}, int64_t{7}));
  EXPECT_EQ(Range("bp", {0}), std::make_pair(int64_t{7}, int64_t{11}));
  EXPECT_EQ(Range("inc"), std::make_pair(int64_t{11}, int64_t{13}));
  EXPECT_EQ(Range("w", {0}), std::make_pair(int64_t{13}, int64_t{13}));
  // The tuple table's buffer {init, cp{}, bp{}, bt, w{}}.
  EXPECT_EQ(Range("init"), std::make_pair(int64_t{2}, int64_t{3}));
  EXPECT_EQ(Range("cp"), std::make_pair(int64_t{3}, int64_t{7}));
  EXPECT_EQ(Range("bp"), std::make_pair(int64_t{7}, int64_t{9}));
  EXPECT_EQ(Range("bt"), std::make_pair(int64_t{12}, int64_t{13}));
  EXPECT_EQ(Range("w"), std::make_pair(int64_t{13}, int64_t{14}));
  // Single-value buffers: the condition's root lives to the condition's end.
  EXPECT_EQ(Range("lt"), std::make_pair(int64_t{6}, int64_t{7}));
  EXPECT_EQ(Range("c10"), std::make_pair(int64_t{5}, int64_t{6}));
  EXPECT_EQ(Range("one"), std::make_pair(int64_t{10}, int64_t{11}));
}

TEST_F(HloLiveRangeTest, ComputationScopedRunSeesOnlyTheEntry) {
  auto live_range = HloLiveRange::Run(module_->schedule(), *alias_, module_->entry_computation(),
                                      /*module_scoped_analysis=*/false);
  ASSERT_TRUE(live_range.ok());
  EXPECT_EQ((*live_range)->schedule_end_time(), 5);
  const HloValue& zero = alias_->dataflow_analysis().GetValueDefinedAt(Find(*module_, "zero"));
  // Without module scope the while's use stays at the while (time 3).
  EXPECT_EQ((*live_range)->buffer_live_ranges().at(&zero).end, 3);
}

}  // namespace
}  // namespace hmo
