// Keeping a loop's stacked state in host memory one slice per iteration:
// which stacks qualify, and that the rewritten module computes what it did
// (the reference evaluator on both) with the stack in S(5).

#include "loop_state_offload.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/random_literals.h"
#include "hmo/ir/layout.h"
#include "hmo/verifier/hlo_verifier.h"
#include "fitting_test_support.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

// A forward loop writes row i of a 2x4 stack per iteration (a fused
// dynamic-update-slice); a backward loop reads row 1-i per iteration (a
// fused dynamic-slice) into its accumulator.
constexpr char kScan[] = R"(HloModule scan_small, is_scheduled=true

%write_slice (stack: f32[2,4], i: s32[], x: f32[4]) -> f32[2,4] {
  %stack = f32[2,4]{1,0} parameter(0)
  %x = f32[4]{0} parameter(2)
  %e = f32[4]{0} exponential(%x)
  %row = f32[1,4]{1,0} bitcast(%e)
  %i = s32[] parameter(1)
  %zero = s32[] constant(0)
  ROOT %written = f32[2,4]{1,0} dynamic-update-slice(%stack, %row, %i, %zero)
}

%forward_body (state: (s32[], f32[4], f32[2,4])) -> (s32[], f32[4], f32[2,4]) {
  %state = (s32[], f32[4]{0}, f32[2,4]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%state), index=0
  %x = f32[4]{0} get-tuple-element(%state), index=1
  %stack = f32[2,4]{1,0} get-tuple-element(%state), index=2
  %stack.next = f32[2,4]{1,0} fusion(%stack, %i, %x), kind=kLoop, calls=%write_slice
  %x.next = f32[4]{0} sine(%x)
  %one = s32[] constant(1)
  %i.next = s32[] add(%i, %one)
  ROOT %next = (s32[], f32[4]{0}, f32[2,4]{1,0}) tuple(%i.next, %x.next, %stack.next)
}

%forward_cond (state: (s32[], f32[4], f32[2,4])) -> pred[] {
  %state = (s32[], f32[4]{0}, f32[2,4]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%state), index=0
  %two = s32[] constant(2)
  ROOT %lt = pred[] compare(%i, %two), direction=LT
}

%read_slice (stack: f32[2,4], i: s32[], acc: f32[4]) -> f32[4] {
  %stack = f32[2,4]{1,0} parameter(0)
  %one = s32[] constant(1)
  %i = s32[] parameter(1)
  %back = s32[] subtract(%one, %i)
  %zero = s32[] constant(0)
  %row = f32[1,4]{1,0} dynamic-slice(%stack, %back, %zero), dynamic_slice_sizes={1,4}
  %r = f32[4]{0} bitcast(%row)
  %acc = f32[4]{0} parameter(2)
  %m = f32[4]{0} multiply(%acc, %r)
  ROOT %sum = f32[4]{0} add(%m, %r)
}

%backward_body (state: (s32[], f32[4], f32[2,4])) -> (s32[], f32[4], f32[2,4]) {
  %state = (s32[], f32[4]{0}, f32[2,4]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%state), index=0
  %acc = f32[4]{0} get-tuple-element(%state), index=1
  %stack = f32[2,4]{1,0} get-tuple-element(%state), index=2
  %acc.next = f32[4]{0} fusion(%stack, %i, %acc), kind=kLoop, calls=%read_slice
  %one = s32[] constant(1)
  %i.next = s32[] add(%i, %one)
  ROOT %next = (s32[], f32[4]{0}, f32[2,4]{1,0}) tuple(%i.next, %acc.next, %stack)
}

%backward_cond (state: (s32[], f32[4], f32[2,4])) -> pred[] {
  %state = (s32[], f32[4]{0}, f32[2,4]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%state), index=0
  %two = s32[] constant(2)
  ROOT %lt = pred[] compare(%i, %two), direction=LT
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %zero = s32[] constant(0)
  %zeros = f32[] constant(0)
  %empty = f32[2,4]{1,0} broadcast(%zeros), dimensions={}
  %forward.init = (s32[], f32[4]{0}, f32[2,4]{1,0}) tuple(%zero, %x, %empty)
  %forward = (s32[], f32[4]{0}, f32[2,4]{1,0}) while(%forward.init), condition=%forward_cond, body=%forward_body
  %residuals = f32[2,4]{1,0} get-tuple-element(%forward), index=2
  %h = f32[4]{0} get-tuple-element(%forward), index=1
  %backward.init = (s32[], f32[4]{0}, f32[2,4]{1,0}) tuple(%zero, %h, %residuals)
  %backward = (s32[], f32[4]{0}, f32[2,4]{1,0}) while(%backward.init), condition=%backward_cond, body=%backward_body
  ROOT %out = f32[4]{0} get-tuple-element(%backward), index=1
}
)";

const HloInstruction& Loop(const HloModule& module, const std::string& name) {
  return *module.entry_computation()->GetInstructionWithName(name);
}

bool OnHost(const HloInstruction& loop, int64_t index) {
  return loop.shape().tuple_shapes(index).memory_space() == Layout::kHostMemorySpace;
}

// Applies `offload` to `text`'s module and checks it still verifies and
// computes what it did; returns the rewritten module.
std::unique_ptr<HloModule> ApplyAndCompare(const std::string& text,
                                           const LoopStateOffload& offload) {
  std::unique_ptr<HloModule> original = test_support::ParseAndVerifyTestModule(text);
  std::unique_ptr<HloModule> module = test_support::ParseAndVerifyTestModule(text);
  const absl::Status applied = ApplyLoopStateOffload(*module, offload);
  EXPECT_TRUE(applied.ok()) << applied;
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << VerifyHloModule(*module);
  EXPECT_TRUE(module->schedule().Verify().ok()) << module->schedule().Verify();
  const std::vector<Literal> arguments = MakeRandomArguments(*original, 7);
  HloEvaluator evaluator;
  absl::StatusOr<Literal> expected = evaluator.Evaluate(*original, arguments);
  absl::StatusOr<Literal> actual = evaluator.Evaluate(*module, arguments);
  EXPECT_TRUE(expected.ok()) << expected.status();
  EXPECT_TRUE(actual.ok()) << actual.status();
  if (expected.ok() && actual.ok()) {
    EXPECT_TRUE(*expected == *actual);
  }
  return module;
}

TEST(LoopStateOffloadTest, PairsTheLoopThatWritesAStackWithTheLoopThatReadsIt) {
  std::unique_ptr<HloModule> module = test_support::ParseAndVerifyTestModule(kScan);
  const std::vector<LoopStateOffload> offloads =
      FindLoopStateOffloads(*module, *module->entry_computation());
  ASSERT_EQ(offloads.size(), 1u);
  ASSERT_EQ(offloads[0].stacks.size(), 1u);
  const LoopStateOffload::Stack& stack = offloads[0].stacks[0];
  EXPECT_EQ(stack.writer, "forward");
  EXPECT_EQ(stack.writer_index, 2);
  EXPECT_EQ(stack.reader, "backward");
  EXPECT_EQ(stack.reader_index, 2);
  EXPECT_EQ(stack.bytes, 32);
  EXPECT_EQ(offloads[0].ToString(), "backward{2} to host by slices (written by forward{2})");
}

TEST(LoopStateOffloadTest, TheStackNeverLivesOnTheDevice) {
  std::unique_ptr<HloModule> module = test_support::ParseAndVerifyTestModule(kScan);
  const int64_t before = testing::DeviceBytes(*module);
  const std::vector<LoopStateOffload> offloads =
      FindLoopStateOffloads(*module, *module->entry_computation());
  ASSERT_FALSE(offloads.empty());
  std::unique_ptr<HloModule> offloaded = ApplyAndCompare(kScan, offloads[0]);
  EXPECT_TRUE(OnHost(Loop(*offloaded, "forward"), 2));
  EXPECT_TRUE(OnHost(Loop(*offloaded, "backward"), 2));
  // Rows cross the link: computed on the device, copied out; read on the
  // host, copied in. The fusions no longer see the stack.
  const HloComputation& forward = *Loop(*offloaded, "forward").while_body();
  const HloComputation& backward = *Loop(*offloaded, "backward").while_body();
  EXPECT_EQ(forward.root_instruction()->operand(2)->opcode(), HloOpcode::kDynamicUpdateSlice);
  EXPECT_EQ(backward.GetInstructionWithName("stack.slice_to_device")->operand(0)->opcode(),
            HloOpcode::kDynamicSlice);
  EXPECT_LT(testing::DeviceBytes(*offloaded), before);
}

TEST(LoopStateOffloadTest, AStackOnlyReadIsCopiedToTheHostBeforeTheLoop) {
  // The backward loop reads a stack the entry computes: no writing loop.
  const std::string text = absl::StrReplaceAll(
      kScan,
      {{"%backward.init = (s32[], f32[4]{0}, f32[2,4]{1,0}) tuple(%zero, %h, %residuals)",
        "%computed = f32[2,4]{1,0} exponential(%empty)\n"
        "  %backward.init = (s32[], f32[4]{0}, f32[2,4]{1,0}) tuple(%zero, %h, %computed)"}});
  std::unique_ptr<HloModule> module = test_support::ParseAndVerifyTestModule(text);
  const std::vector<LoopStateOffload> offloads =
      FindLoopStateOffloads(*module, *module->entry_computation());
  // The forward loop's stack is now read by nothing: written alone.
  ASSERT_EQ(offloads.size(), 3u);
  const LoopStateOffload* read_alone = nullptr;
  for (const LoopStateOffload& offload : offloads) {
    if (offload.stacks.size() == 1 && offload.stacks[0].writer.empty()) read_alone = &offload;
  }
  ASSERT_NE(read_alone, nullptr);
  std::unique_ptr<HloModule> offloaded = ApplyAndCompare(text, *read_alone);
  EXPECT_TRUE(OnHost(Loop(*offloaded, "backward"), 2));
  EXPECT_NE(offloaded->entry_computation()->GetInstructionWithName("computed.to_host"), nullptr);
}

TEST(LoopStateOffloadTest, AStackOnlyWrittenIsCopiedBackForItsReaders) {
  // The forward loop's stack is also returned: written alone, copied back.
  const std::string text = absl::StrReplaceAll(
      kScan,
      {{"ENTRY %main (x: f32[4]) -> f32[4] {", "ENTRY %main (x: f32[4]) -> (f32[4], f32[2,4]) {"},
       {"%backward.init = (s32[], f32[4]{0}, f32[2,4]{1,0}) tuple(%zero, %h, %residuals)",
        "%backward.init = (s32[], f32[4]{0}, f32[2,4]{1,0}) tuple(%zero, %h, %empty)"},
       {"ROOT %out = f32[4]{0} get-tuple-element(%backward), index=1",
        "%out = f32[4]{0} get-tuple-element(%backward), index=1\n"
        "  ROOT %both = (f32[4]{0}, f32[2,4]{1,0}) tuple(%out, %residuals)"}});
  std::unique_ptr<HloModule> module = test_support::ParseAndVerifyTestModule(text);
  const LoopStateOffload written_alone{"main", {{"forward", 2, "", -1, 32}}};
  std::unique_ptr<HloModule> offloaded = ApplyAndCompare(text, written_alone);
  EXPECT_TRUE(OnHost(Loop(*offloaded, "forward"), 2));
  const HloInstruction* back =
      offloaded->entry_computation()->GetInstructionWithName("residuals.to_device");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->shape().memory_space(), 0);
}

TEST(LoopStateOffloadTest, AStackReadWholeStaysOnTheDevice) {
  // The backward body reads the whole stack (a reduce-free negate of it):
  // not a slice per iteration.
  const std::string text = absl::StrReplaceAll(
      kScan, {{"%acc.next = f32[4]{0} fusion(%stack, %i, %acc), kind=kLoop, calls=%read_slice",
               "%acc.next = f32[4]{0} fusion(%stack, %i, %acc), kind=kLoop, calls=%read_slice\n"
               "  %whole = f32[2,4]{1,0} negate(%stack)"}});
  std::unique_ptr<HloModule> module = test_support::ParseTestModule(text);
  for (const LoopStateOffload& offload :
       FindLoopStateOffloads(*module, *module->entry_computation())) {
    for (const LoopStateOffload::Stack& stack : offload.stacks) {
      EXPECT_NE(stack.reader, "backward");
    }
  }
}

}  // namespace
}  // namespace hmo
