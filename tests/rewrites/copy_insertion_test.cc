// copy-insertion: the copies that make alias analysis's buffers of while
// loops and conditionals free of interference. Each test pins where copies
// go, and that buffer assignment then gives a while loop's conflicting
// leaves separate buffers.

#include "hmo/rewrites/copy_insertion.h"

#include <algorithm>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "support/test_data.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/ir/literal.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using test_support::ParseTestModule;

int CountOpcode(const HloComputation& computation, HloOpcode opcode) {
  int count = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    count += instruction->opcode() == opcode;
  }
  return count;
}

// A loop whose init repeats one broadcast in two leaves and whose body swaps
// the two leaves: without copies, both leaves and both loop values share
// one buffer.
constexpr char kSwapLoop[] = R"(
HloModule swap

body {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  a = f32[4] get-tuple-element(p), index=1
  b = f32[4] get-tuple-element(p), index=2
  ROOT t = (s32[], f32[4], f32[4]) tuple(next, b, a)
}

cond {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY e {
  zero = s32[] constant(0)
  x = f32[] parameter(0)
  bx = f32[4] broadcast(x), dimensions={}
  init = (s32[], f32[4], f32[4]) tuple(zero, bx, bx)
  w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)";

TEST(CopyInsertionTest, CopiesWhileInitLeavesAndSwappedBodyLeaves) {
  std::unique_ptr<HloModule> module = ParseTestModule(kSwapLoop);
  absl::StatusOr<bool> changed = CopyInsertion::AddCopies(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_TRUE(VerifyHloModule(*module).ok());

  // Three init leaves copied; the old init tuple is gone.
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kCopy), 3);
  EXPECT_EQ(entry->GetInstructionWithName("init"), nullptr);

  // Body: `next` is computed from the counter element by element, so it is
  // computed straight into the counter's buffer (no copy). b and a swap
  // leaves: each goes through a temporary, and each copy into place waits
  // for the temporary that reads the leaf it overwrites.
  const HloComputation* body = module->GetComputationWithName("body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kCopy), 4);
  const HloInstruction* root = body->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kTuple);
  EXPECT_EQ(root->operand(0)->name(), "next");
  for (int64_t leaf : {1, 2}) {
    const HloInstruction* placed = root->operand(leaf);
    ASSERT_EQ(placed->opcode(), HloOpcode::kCopy);
    const HloInstruction* temporary = placed->operand(0);
    ASSERT_EQ(temporary->opcode(), HloOpcode::kCopy);
    // Leaf 1 receives b (read by the temporary of leaf 2, which copies a
    // from leaf 1's old value) and vice versa.
    const HloInstruction* other_temporary = root->operand(3 - leaf)->operand(0);
    EXPECT_EQ(placed->control_predecessors(),
              std::vector<HloInstruction*>{const_cast<HloInstruction*>(other_temporary)})
        << placed->name();
  }
}

// A loop whose body only reads leaf 1 (a pass-through) and counts leaf 0.
constexpr char kPassThroughLoop[] = R"(
HloModule passthrough

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  keep = f32[4] get-tuple-element(p), index=1
  ROOT t = (s32[], f32[4]) tuple(next, keep)
}

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY e {
  zero = s32[] constant(0)
  x = f32[4] parameter(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)";

TEST(CopyInsertionTest, PassThroughLeafIsNotCopiedInTheBody) {
  std::unique_ptr<HloModule> module = ParseTestModule(kPassThroughLoop);
  ASSERT_TRUE(CopyInsertion::AddCopies(*module).ok());
  const HloComputation* body = module->GetComputationWithName("body");
  // The counter is computed in place; nothing is copied.
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kCopy), 0);
  EXPECT_EQ(body->root_instruction()->operand(1)->name(), "keep");
}

TEST(CopyInsertionTest, ValuesReadingEachOthersLeavesCannotBothBeInPlace) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule cross

body {
  p = (f32[4], f32[4]) parameter(0)
  a = f32[4] get-tuple-element(p), index=0
  b = f32[4] get-tuple-element(p), index=1
  sum = f32[4] add(a, b)
  product = f32[4] multiply(a, b)
  ROOT t = (f32[4], f32[4]) tuple(sum, product)
}

cond {
  p = (f32[4], f32[4]) parameter(0)
  ROOT f = pred[] constant(false)
}

ENTRY e {
  x = f32[4] parameter(0)
  init = (f32[4], f32[4]) tuple(x, x)
  ROOT w = (f32[4], f32[4]) while(init), condition=cond, body=body
}
)");
  ASSERT_TRUE(CopyInsertion::AddCopies(*module).ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  const HloComputation* body = module->GetComputationWithName("body");
  const HloInstruction* root = body->root_instruction();
  // `sum` is computed in place (after `product`, the other reader of a);
  // `product` then cannot be (`sum` reads b and already follows it), so it
  // is copied into place.
  EXPECT_EQ(root->operand(0)->name(), "sum");
  ASSERT_EQ(root->operand(1)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(root->operand(1)->operand(0)->name(), "product");
  const HloInstruction* sum = body->GetInstructionWithName("sum");
  const HloInstruction* product = body->GetInstructionWithName("product");
  EXPECT_EQ(sum->control_predecessors(),
            std::vector<HloInstruction*>{const_cast<HloInstruction*>(product)});
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kCopy), 1);
}

TEST(CopyInsertionTest, DynamicUpdateSliceOfItsOwnLeafUpdatesInPlace) {
  std::unique_ptr<HloModule> module =
      ParseTestModule(test_support::ReadTestData("rewrites/scan_in_place.hlo"));
  ASSERT_TRUE(CopyInsertion::AddCopies(*module).ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  const HloComputation* body = module->GetComputationWithName("body");
  const HloInstruction* root = body->root_instruction();
  // No copy of the stack per iteration: the update writes into it, after
  // the dynamic-slice read it.
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kCopy), 0);
  EXPECT_EQ(root->operand(1)->name(), "updated");
  const HloInstruction* row = body->GetInstructionWithName("row");
  EXPECT_EQ(root->operand(1)->control_predecessors(),
            std::vector<HloInstruction*>{const_cast<HloInstruction*>(row)});
}

// A scan body as cpu-default.yaml leaves it: the carried row is read
// through a bitcast (a reshape turned into a view) as the update of the
// stacked output, which is updated in place; the carry's new value reads it
// element by element.
constexpr char kBitcastReadLoop[] = R"(
HloModule scan_bitcast

body {
  s = (s32[], f32[4]{0}, f32[3,4]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[4]{0} get-tuple-element(s), index=1
  stack = f32[3,4]{1,0} get-tuple-element(s), index=2
  row = f32[1,4]{1,0} bitcast(h)
  zero = s32[] constant(0)
  updated = f32[3,4]{1,0} dynamic-update-slice(stack, row, i, zero)
  next = f32[4]{0} tanh(h)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[4]{0}, f32[3,4]{1,0}) tuple(j, next, updated)
}

cond {
  s = (s32[], f32[4]{0}, f32[3,4]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  zero = s32[] constant(0)
  h0 = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  stack0 = f32[3,4]{1,0} broadcast(z), dimensions={}
  init = (s32[], f32[4]{0}, f32[3,4]{1,0}) tuple(zero, h0, stack0)
  ROOT w = (s32[], f32[4]{0}, f32[3,4]{1,0}) while(init), condition=cond, body=body
}
)";

TEST(CopyInsertionTest, LeafReadThroughABitcastStillListsItsReaders) {
  std::unique_ptr<HloModule> module = ParseTestModule(kBitcastReadLoop);
  std::unique_ptr<HloModule> reference = module->Clone();
  ASSERT_TRUE(CopyInsertion::AddCopies(*module).ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  const HloComputation* body = module->GetComputationWithName("body");
  // Neither the stack nor the carry goes through a copy per iteration.
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kCopy), 0) << module->ToString();
  // The carry is overwritten only after the update read it through the
  // bitcast.
  const HloInstruction* next = body->GetInstructionWithName("next");
  const HloInstruction* updated = body->GetInstructionWithName("updated");
  EXPECT_NE(
      std::find(next->control_predecessors().begin(), next->control_predecessors().end(), updated),
      next->control_predecessors().end());
  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {0.5, -1, 0, 2}));
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(*reference, arguments);
  absl::StatusOr<Literal> actual = HloEvaluator().Evaluate(*module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(expected->ToString(), actual->ToString());
}

TEST(CopyInsertionTest, BranchRootParametersAndEntryConstantsAreCopied) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule cond

on_true {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}

on_false {
  ROOT p = f32[2] parameter(0)
}

ENTRY e {
  b = pred[] parameter(0)
  x = f32[2] parameter(1)
  c = f32[2] conditional(b, x, x), true_computation=on_true, false_computation=on_false
  k = f32[2] constant({1, 2})
  ROOT t = (f32[2], f32[2]) tuple(c, k)
}
)");
  absl::StatusOr<bool> changed = CopyInsertion::AddCopies(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  // The negate is computed straight into the conditional's output; the
  // parameter passed through would share the caller's x, so it is copied.
  EXPECT_EQ(module->GetComputationWithName("on_true")->root_instruction()->opcode(),
            HloOpcode::kNegate);
  EXPECT_EQ(module->GetComputationWithName("on_false")->root_instruction()->opcode(),
            HloOpcode::kCopy);
  // The constant leaf of the entry root is copied; the conditional's is not.
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kConditional);
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kCopy);
}

TEST(CopyInsertionTest, BranchValueUsedTwiceOrUpdatingInPlaceIsCopied) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule cond

on_true {
  p = (f32[4], s32[]) parameter(0)
  v = f32[4] get-tuple-element(p), index=0
  n = f32[4] negate(v)
  ROOT t = (f32[4], f32[4]) tuple(n, n)
}

on_false {
  p = (f32[4], s32[]) parameter(0)
  v = f32[4] get-tuple-element(p), index=0
  i = s32[] get-tuple-element(p), index=1
  u = f32[1] constant({7})
  d = f32[4] dynamic-update-slice(v, u, i)
  e = f32[4] exponential(v)
  ROOT t = (f32[4], f32[4]) tuple(d, e)
}

ENTRY e {
  b = pred[] parameter(0)
  x = f32[4] parameter(1)
  i = s32[] parameter(2)
  a = (f32[4], s32[]) tuple(x, i)
  ROOT c = (f32[4], f32[4]) conditional(b, a, a), true_computation=on_true, false_computation=on_false
}
)");
  absl::StatusOr<bool> changed = CopyInsertion::AddCopies(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  const HloInstruction* on_true = module->GetComputationWithName("on_true")->root_instruction();
  // One value cannot be two outputs: both leaves are copies.
  EXPECT_EQ(on_true->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(on_true->operand(1)->opcode(), HloOpcode::kCopy);
  const HloInstruction* on_false = module->GetComputationWithName("on_false")->root_instruction();
  // The in-place update would write the caller's x; the exponential owns its output.
  EXPECT_EQ(on_false->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(on_false->operand(1)->opcode(), HloOpcode::kExp);
}

TEST(CopyInsertionTest, BranchOutputAliasedWithADonatedParameterIsCopied) {
  // The output is donated x's buffer: a negate computed straight into it
  // would write x while the branch still reads it.
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule cond, input_output_alias={ {}: (1, {}, may-alias) }

on_true {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}

on_false {
  p = f32[8] parameter(0)
  ROOT e = f32[8] exponential(p)
}

ENTRY e {
  b = pred[] parameter(0)
  x = f32[8] parameter(1)
  ROOT c = f32[8] conditional(b, x, x), true_computation=on_true, false_computation=on_false
}
)");
  absl::StatusOr<bool> changed = CopyInsertion::AddCopies(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  for (const char* branch : {"on_true", "on_false"}) {
    EXPECT_EQ(module->GetComputationWithName(branch)->root_instruction()->opcode(),
              HloOpcode::kCopy)
        << branch;
  }
}

TEST(CopyInsertionTest, ModuleWithoutLoopsOrConditionalsIsUnchanged) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule plain
ENTRY e {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
)");
  absl::StatusOr<bool> changed = CopyInsertion::AddCopies(*module);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST(CopyInsertionTest, LoopLeavesGetSeparateBuffersAfterCopies) {
  std::unique_ptr<HloModule> module = ParseTestModule(kSwapLoop);
  ASSERT_TRUE(CopyInsertion::AddCopies(*module).ok());
  HloSchedule schedule(module.get());
  for (HloComputation* computation : module->MakeNonfusionComputations()) {
    schedule.set_sequence(computation, computation->MakeInstructionPostOrder());
  }
  absl::StatusOr<std::unique_ptr<BufferAssignment>> assignment = BufferAssigner::Run(
      module.get(), schedule, ByteSizeOfValue(8), [](int64_t) { return 1; },
      BufferAssigner::Options{});
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  const HloInstruction* loop = module->entry_computation()->GetInstructionWithName("w");
  const auto a = (*assignment)->GetAllSlices(loop, {1});
  const auto b = (*assignment)->GetAllSlices(loop, {2});
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_FALSE(*a.begin() == *b.begin());
}

// A loop that doubles its second leaf; `init` is given by the test.
std::string DoublingLoop(const std::string& entry) {
  return R"(
HloModule doubling, is_scheduled=true

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  a = f32[4] get-tuple-element(p), index=1
  twice = f32[4] add(a, a)
  ROOT t = (s32[], f32[4]) tuple(next, twice)
}

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
)" + entry;
}

// The init operand of the loop's leaf `leaf`, through its tuple.
const HloInstruction* InitLeaf(const HloModule& module, int64_t leaf) {
  const HloInstruction* loop = module.entry_computation()->GetInstructionWithName("w");
  return loop->operand(0)->operand(leaf);
}

TEST(CopyInsertionTest, ScheduledLoopUpdatesADeadInitInPlace) {
  // `x2` is read by nothing after the loop starts: the loop's state can live
  // in its buffer (XLA's in-place loop), so its init copy goes again.
  std::unique_ptr<HloModule> module = ParseTestModule(DoublingLoop(R"(
ENTRY e {
  zero = s32[] constant(0)
  x = f32[4] parameter(0)
  x2 = f32[4] multiply(x, x)
  init = (s32[], f32[4]) tuple(zero, x2)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)"));
  ASSERT_TRUE(CopyInsertion::AddCopies(*module).ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  EXPECT_EQ(InitLeaf(*module, 1)->name(), "x2");
  // The constant counter stays copied: read-only data is never loop state.
  EXPECT_EQ(InitLeaf(*module, 0)->opcode(), HloOpcode::kCopy);
  EXPECT_TRUE(module->schedule().Verify().ok());
}

TEST(CopyInsertionTest, InitReadAfterTheLoopStaysCopied) {
  // `x2` is read after the loop: the loop must not overwrite it.
  std::unique_ptr<HloModule> module = ParseTestModule(DoublingLoop(R"(
ENTRY e {
  zero = s32[] constant(0)
  x = f32[4] parameter(0)
  x2 = f32[4] multiply(x, x)
  init = (s32[], f32[4]) tuple(zero, x2)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  r = f32[4] get-tuple-element(w), index=1
  ROOT sum = f32[4] add(r, x2)
}
)"));
  ASSERT_TRUE(CopyInsertion::AddCopies(*module).ok());
  const HloInstruction* leaf = InitLeaf(*module, 1);
  ASSERT_EQ(leaf->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(leaf->operand(0)->name(), "x2");
}

TEST(CopyInsertionTest, ParameterInitOfAWrittenLeafStaysCopied) {
  // An entry parameter is the caller's: a loop that writes the leaf works on
  // a copy.
  std::unique_ptr<HloModule> module = ParseTestModule(DoublingLoop(R"(
ENTRY e {
  zero = s32[] constant(0)
  x = f32[4] parameter(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)"));
  ASSERT_TRUE(CopyInsertion::AddCopies(*module).ok());
  EXPECT_EQ(InitLeaf(*module, 1)->opcode(), HloOpcode::kCopy);
}

TEST(CopyInsertionTest, PassThroughInitLeafIsNotCopied) {
  // The body only reads leaf 1: its state stays in the parameter's buffer.
  std::unique_ptr<HloModule> module = ParseTestModule(kPassThroughLoop);
  ASSERT_TRUE(CopyInsertion::AddCopies(*module).ok());
  EXPECT_EQ(InitLeaf(*module, 1)->name(), "x");
  EXPECT_EQ(CountOpcode(*module->entry_computation(), HloOpcode::kCopy), 1);  // the counter
}

}  // namespace
}  // namespace hmo
