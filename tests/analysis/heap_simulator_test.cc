// HeapSimulator: the event stream (operand-buffer reuse, ShareWith for
// HloBuffers, constants) and the peaks and offsets heap algorithms give on
// small modules, worked out by hand from XLA's rules (heap_simulator.h).

#include "hmo/analysis/heap_simulator.h"

#include <string>
#include <vector>

#include "analysis_test_util.h"
#include "gtest/gtest.h"
#include "hmo/analysis/best_fit_heap.h"
#include "hmo/analysis/heap_no_fragmentation_stats.h"

namespace hmo {
namespace {

using ::hmo::testing::Find;
using ::hmo::testing::ParseOrDie;
using ::hmo::testing::WhileLoopModule;

struct Simulation {
  std::unique_ptr<HloModule> module;
  std::unique_ptr<HloAliasAnalysis> alias;
  HeapSimulator::Result result;
};

Simulation Simulate(std::string_view text,
                    std::unique_ptr<HeapSimulator::Algorithm> algorithm =
                        std::make_unique<GlobalDecreasingSizeBestFitHeap<const HloValue*>>(1),
                    HeapSimulator::Options options = {}) {
  Simulation s;
  s.module = ParseOrDie(text);
  auto alias = HloAliasAnalysis::Run(s.module.get());
  EXPECT_TRUE(alias.ok()) << alias.status();
  s.alias = std::move(*alias);
  auto result = HeapSimulator::Run(std::move(algorithm), *s.module, s.module->schedule(),
                                   *s.alias, ByteSizeOfValue(8), options);
  EXPECT_TRUE(result.ok()) << result.status();
  s.result = std::move(*result);
  return s;
}

// "A name" / "F name" / "S name->other" per event.
std::vector<std::string> Trace(const Simulation& s) {
  std::vector<std::string> out;
  for (const auto& event : s.result.debug_trace.events) {
    const HloValue& value = s.alias->dataflow_analysis().GetValue(event.buffer_id);
    std::string name = value.instruction()->name();
    if (!value.index().empty()) name += ShapeIndexToString(value.index());
    switch (event.kind) {
      case HeapSimulatorTrace::Event::kAlloc:
        out.push_back("A " + name);
        break;
      case HeapSimulatorTrace::Event::kFree:
        out.push_back("F " + name);
        break;
      case HeapSimulatorTrace::Event::kShareWith: {
        const HloValue& other = s.alias->dataflow_analysis().GetValue(event.share_with_canonical_id);
        out.push_back("S " + name + "->" + other.instruction()->name());
        break;
      }
    }
  }
  return out;
}

int64_t OffsetOf(const Simulation& s, std::string_view name, ShapeIndex index = {}) {
  const HloValue& value =
      s.alias->dataflow_analysis().GetValueDefinedAt(Find(*s.module, name), index);
  for (const auto& heap : s.result.heap_results) {
    auto it = heap.chunk_map.find(&value);
    if (it != heap.chunk_map.end()) return it->second.offset;
  }
  ADD_FAILURE() << "no chunk for " << name;
  return -1;
}

constexpr char kElementwiseChain[] = R"(
HloModule chain, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(a)
  ROOT c = f32[4] add(b, p)
}
)";

TEST(HeapSimulatorTest, ElementwiseUsersTakeOverDyingOperands) {
  Simulation s = Simulate(kElementwiseChain);
  // b reuses a, c reuses b; p (read-only parameter) lives to the end.
  EXPECT_EQ(Trace(s), (std::vector<std::string>{"A p", "A a", "F a", "S b->a", "F b", "S c->b",
                                                "F p", "F c"}));
  EXPECT_EQ(s.result.heap_size, 32);
  EXPECT_EQ(OffsetOf(s, "p"), 0);
  EXPECT_EQ(OffsetOf(s, "a"), 16);
  EXPECT_EQ(OffsetOf(s, "b"), 16);
  EXPECT_EQ(OffsetOf(s, "c"), 16);
  EXPECT_EQ(s.result.fragmentation_size, 0);
}

TEST(HeapSimulatorTest, CopyNeverReusesItsOperand) {
  Simulation s = Simulate(R"(
HloModule chain, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] copy(a)
  ROOT c = f32[4] add(b, p)
}
)");
  EXPECT_EQ(Trace(s), (std::vector<std::string>{"A p", "A a", "A b", "F a", "F b", "S c->b",
                                                "F p", "F c"}));
  // p [0,6], a [1,3], b [2,4] + c: all 16 bytes, p first (longest), then a
  // (ties broken by id), then b above both.
  EXPECT_EQ(s.result.heap_size, 48);
  EXPECT_EQ(OffsetOf(s, "p"), 0);
  EXPECT_EQ(OffsetOf(s, "a"), 16);
  EXPECT_EQ(OffsetOf(s, "b"), 32);
  EXPECT_EQ(OffsetOf(s, "c"), 32);
}

TEST(HeapSimulatorTest, WhileLoopSharesCarriedBuffers) {
  Simulation s = Simulate(WhileLoopModule(/*scheduled=*/true));
  // Constants take no heap space; the carried tuple table and counter are
  // allocated once and shared by every value of their HloBuffer.
  EXPECT_EQ(Trace(s), (std::vector<std::string>{
                          "A x", "A init", "S cp->init", "A cp{0}", "F init", "A lt",
                          "S bp->init", "S bp{0}->cp", "F cp", "F cp{0}", "F lt", "F bp",
                          "S inc->cp", "F bp{0}", "S bt->init", "S w{0}->cp", "S w->init",
                          "F inc", "F bt", "F w{0}", "F w", "F x"}));
  // x at 0, the tuple-table group at 16, the counter group at 32, lt at 36.
  EXPECT_EQ(s.result.heap_size, 37);
  EXPECT_EQ(OffsetOf(s, "x"), 0);
  EXPECT_EQ(OffsetOf(s, "init"), 16);
  EXPECT_EQ(OffsetOf(s, "w"), 16);
  EXPECT_EQ(OffsetOf(s, "inc"), 32);
  EXPECT_EQ(OffsetOf(s, "w", {0}), 32);
  EXPECT_EQ(OffsetOf(s, "lt"), 36);
}

TEST(HeapSimulatorTest, MinimumMemoryCountsEverySharedValueAgainAsXlaDoes) {
  auto module = ParseOrDie(WhileLoopModule(/*scheduled=*/true));
  auto alias = HloAliasAnalysis::Run(module.get());
  ASSERT_TRUE(alias.ok());
  // NoFragmentationStatsHeap treats ShareWith as Alloc, so shared values
  // count again. Peak at time 7: x 16 + cp{} 16 + cp{0} 4 + lt 1, then
  // bp{} shares (+16) and bp{0} shares (+4): 57.
  auto minimum = HeapSimulator::MinimumMemoryForModule(module->schedule(), **alias,
                                                       ByteSizeOfValue(8));
  ASSERT_TRUE(minimum.ok());
  EXPECT_EQ(*minimum, 57);
  auto chain = ParseOrDie(kElementwiseChain);
  auto chain_alias = HloAliasAnalysis::Run(chain.get());
  ASSERT_TRUE(chain_alias.ok());
  auto chain_minimum = HeapSimulator::MinimumMemoryForModule(chain->schedule(), **chain_alias,
                                                             ByteSizeOfValue(8));
  ASSERT_TRUE(chain_minimum.ok());
  EXPECT_EQ(*chain_minimum, 32);
}

TEST(HeapSimulatorTest, NoOperandReuseWhenDisabledAndConstantsWhenAsked) {
  HeapSimulator::Options options;
  options.may_reuse_operand_buffers = false;
  Simulation s = Simulate(kElementwiseChain,
                          std::make_unique<NoFragmentationStatsHeap<const HloValue*>>(), options);
  EXPECT_EQ(Trace(s), (std::vector<std::string>{"A p", "A a", "A b", "F a", "A c", "F b", "F p",
                                                "F c"}));
  EXPECT_EQ(s.result.heap_size, 48);

  HeapSimulator::Options with_constants;
  with_constants.alloc_constants = true;
  Simulation k = Simulate(R"(
HloModule k, is_scheduled=true
ENTRY e {
  c = f32[4] constant({1, 2, 3, 4})
  ROOT n = f32[4] negate(c)
}
)",
                          std::make_unique<NoFragmentationStatsHeap<const HloValue*>>(),
                          with_constants);
  // The constant is allocated, but its buffer is never taken over: n is
  // allocated before c is freed at n's time step.
  EXPECT_EQ(Trace(k), (std::vector<std::string>{"A c", "A n", "F c", "F n"}));
  EXPECT_EQ(k.result.heap_size, 32);
}

TEST(HeapSimulatorTest, AlignmentRoundsOffsets) {
  Simulation s = Simulate(R"(
HloModule aligned, is_scheduled=true
ENTRY e {
  p = pred[3] parameter(0)
  q = f32[2] parameter(1)
  n = pred[3] not(p)
  ROOT t = (pred[3], f32[2]) tuple(n, q)
}
)",
                          std::make_unique<GlobalDecreasingSizeBestFitHeap<const HloValue*>>(8));
  // Sizes: t 16, q 8, p 3, n 3. Placed t, q, then p and n at aligned offsets.
  for (const auto& heap : s.result.heap_results) {
    for (const auto& [value, chunk] : heap.chunk_map) {
      EXPECT_EQ(chunk.offset % 8, 0) << value->ToShortString();
    }
  }
  EXPECT_EQ(s.result.heap_size % 8, 3);
}

TEST(HeapSimulatorTest, ComputationScopedRunIgnoresSubcomputations) {
  auto module = ParseOrDie(WhileLoopModule(/*scheduled=*/true));
  auto alias = HloAliasAnalysis::Run(module.get());
  ASSERT_TRUE(alias.ok());
  const HloComputation* entry = module->entry_computation();
  auto minimum = HeapSimulator::MinimumMemoryForComputation(
      *entry, module->schedule().sequence(entry), **alias, ByteSizeOfValue(8));
  ASSERT_TRUE(minimum.ok());
  // Entry values only: x 16 [0,5], init 16 [2,3]; w{} 16 shares init's
  // buffer, w{0} 4 (the counter buffer, zero being a constant).
  EXPECT_EQ(*minimum, 52);
}

}  // namespace
}  // namespace hmo
