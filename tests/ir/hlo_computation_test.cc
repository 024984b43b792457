#include "hmo/ir/hlo_computation.h"

#include "gtest/gtest.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using test_support::ParseTestModule;

std::vector<std::string> Names(const std::vector<HloInstruction*>& v) {
  std::vector<std::string> out;
  for (auto* i : v) out.push_back(i->name());
  return out;
}

TEST(HloComputationTest, PostOrderFollowsXla) {
  auto m = ParseTestModule(R"(ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  unused = f32[4] negate(q)
  b = f32[4] exponential(p)
  a = f32[4] log(p), control-predecessors={b}
  c = f32[4] add(a, q)
  ROOT t = (f32[4], f32[4]) tuple(c, b)
})");
  ASSERT_NE(m, nullptr);
  // Userless roots in order: unused, then t. From t: control predecessor b
  // of a is visited before a's operands resolve; operands first-to-last.
  EXPECT_EQ(Names(m->entry_computation()->MakeInstructionPostOrder()),
            std::vector<std::string>({"q", "unused", "p", "b", "a", "c", "t"}));
}

TEST(HloComputationTest, RemoveInstructions) {
  auto m = ParseTestModule(R"(ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(a)
  c = f32[4] log(b)
  ROOT r = f32[4] copy(p)
})");
  ASSERT_NE(m, nullptr);
  HloComputation* e = m->entry_computation();
  HloInstruction* b = e->GetInstructionWithName("b");
  HloInstruction* c = e->GetInstructionWithName("c");
  absl::Status st = e->RemoveInstruction(b);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "instruction b still has 1 user(s) and cannot be removed");
  EXPECT_FALSE(e->RemoveInstruction(e->root_instruction()).ok());
  EXPECT_FALSE(e->RemoveInstruction(e->parameter_instruction(0)).ok());
  ASSERT_TRUE(e->RemoveInstructionAndUnusedOperands(c).ok());
  EXPECT_EQ(e->instruction_count(), 2);
  EXPECT_EQ(Names(e->MakeInstructionVector()), std::vector<std::string>({"p", "r"}));
  EXPECT_EQ(e->parameter_instruction(0)->users().size(), 1u);
  e->Cleanup();
  EXPECT_EQ(e->instruction_count(), 2);
}

TEST(HloComputationTest, ReplaceInstructionMovesUsesRootAndControlEdges) {
  auto m = ParseTestModule(R"(ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(a)
  ROOT r = f32[4] add(a, b), control-predecessors={b}
})");
  ASSERT_NE(m, nullptr);
  HloComputation* e = m->entry_computation();
  HloInstruction* r = e->root_instruction();
  HloInstruction* b = e->GetInstructionWithName("b");
  HloInstruction* s = e->AddInstruction(
      HloInstruction::CreateUnary(b->shape(), HloOpcode::kSqrt, e->GetInstructionWithName("a")));
  ASSERT_TRUE(e->ReplaceInstruction(b, s).ok());
  EXPECT_EQ(r->operand(1), s);
  EXPECT_EQ(r->control_predecessors(), std::vector<HloInstruction*>({s}));
  EXPECT_EQ(e->GetInstructionWithName("b"), nullptr);
  // Replacing the root makes the replacement the root.
  HloInstruction* c = e->AddInstruction(HloInstruction::CreateCopy(r->shape(), s));
  ASSERT_TRUE(e->ReplaceInstruction(r, c).ok());
  EXPECT_EQ(e->root_instruction(), c);
  // The new instruction was appended after its user; printing still puts
  // definitions first.
  auto again = ParseHloModule(m->ToString());
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << m->ToString();
  EXPECT_FALSE(e->ReplaceInstruction(c, e->parameter_instruction(0)->users()[0]).ok() &&
               false);
}

TEST(HloComputationTest, CallersAndEmbeddedComputations) {
  auto m = ParseTestModule(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
body {
  b = f32[] parameter(0)
  ROOT c = f32[] call(b, b), to_apply=add
}
cond {
  c = f32[] parameter(0)
  ROOT t = pred[] constant(false)
}
ENTRY e {
  p = f32[] parameter(0)
  ROOT w = f32[] while(p), condition=cond, body=body
})");
  ASSERT_NE(m, nullptr);
  HloComputation* add = m->GetComputationWithName("add");
  ASSERT_EQ(add->caller_instructions().size(), 1u);
  EXPECT_EQ(add->caller_instructions()[0]->opcode(), HloOpcode::kCall);
  EXPECT_EQ(add->caller_instructions(HloOpcode::kWhile).size(), 0u);
  std::vector<std::string> embedded;
  for (HloComputation* c : m->entry_computation()->MakeEmbeddedComputationsList()) embedded.push_back(c->name());
  EXPECT_EQ(embedded, std::vector<std::string>({"add", "body", "cond"}));
  EXPECT_TRUE(m->entry_computation()->IsEntryComputation());
  EXPECT_FALSE(add->IsFusionComputation());
}

}  // namespace
}  // namespace hmo
