// The steps every executing backend runs before buffer assignment
// (hmo/rewrites/execution_preparation.h), each pinned on a module that
// breaks without it, and the buffer plan checker's verdict on the plans with
// and without them (hmo/analysis/buffer_plan_checker.h).

#include "hmo/rewrites/execution_preparation.h"

#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/buffer_plan_checker.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/rewrites/aliased_output_copies.h"
#include "hmo/rewrites/control_flow_layouts.h"
#include "hmo/rewrites/flatten_call_graph.h"
#include "hmo/rewrites/fusion_expansion.h"
#include "hmo/verifier/hlo_verifier.h"
#include "support/test_data.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using test_support::ParseTestModule;

using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<BufferAssignment>> Assign(const HloModule& module) {
  BufferAssigner::Options options;
  options.allocate_buffers_for_constants = true;
  return BufferAssigner::Run(
      &module, module.schedule(), ByteSizeOfValue(8), [](int64_t) { return 64; }, options);
}

int Count(const HloComputation& computation, HloOpcode opcode) {
  int count = 0;
  for (const HloInstruction* instruction : computation.instructions())
    count += instruction->opcode() == opcode;
  return count;
}

// A donated weight w updated in place (w - g) by `update`, scheduled before
// `other`, which still reads w: the output's buffer is w's.
constexpr char kDonatedWrittenEarly[] = R"(
HloModule donated, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }

ENTRY main {
  w = f32[64]{0} parameter(0)
  g = f32[64]{0} parameter(1)
  update = f32[64]{0} subtract(w, g)
  other = f32[64]{0} multiply(w, w)
  ROOT out = (f32[64]{0}, f32[64]{0}) tuple(update, other)
}
)";

TEST(BufferPlanCheckerTest, NamesBothValuesWhenADonatedOutputOverwritesALiveParameter) {
  std::unique_ptr<HloModule> module = ParseTestModule(kDonatedWrittenEarly);
  ASSERT_NE(module, nullptr);
  auto assignment = Assign(*module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  const absl::Status status = CheckBufferPlan(**assignment);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(status.message(), HasSubstr("instruction other (operand 0) reads value"));
  EXPECT_THAT(status.message(), HasSubstr("(defined by w)"));
  EXPECT_THAT(status.message(), HasSubstr("instruction update wrote value"));
}

TEST(AliasedOutputCopiesTest, CopiesTheOutputIntoPlaceAfterTheLastRead) {
  std::unique_ptr<HloModule> module = ParseTestModule(kDonatedWrittenEarly);
  ASSERT_NE(module, nullptr);
  auto copied = CopyAliasedOutputsWrittenTooEarly(*module);
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_TRUE(*copied);
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(entry.root_instruction()->operand(0)->opcode(), HloOpcode::kCopy);
  const auto& sequence = module->schedule().sequence(&entry).instructions();
  ASSERT_GE(sequence.size(), 2u);
  EXPECT_EQ(sequence[sequence.size() - 2]->opcode(), HloOpcode::kCopy);  // just before the root
  EXPECT_TRUE(module->schedule().Verify().ok());
  auto assignment = Assign(*module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  EXPECT_TRUE(CheckBufferPlan(**assignment).ok()) << CheckBufferPlan(**assignment);
}

TEST(AliasedOutputCopiesTest, AnInPlaceLastReaderNeedsNoCopy) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule donated, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }

ENTRY main {
  w = f32[64]{0} parameter(0)
  g = f32[64]{0} parameter(1)
  other = f32[64]{0} multiply(w, w)
  update = f32[64]{0} subtract(w, g)
  ROOT out = (f32[64]{0}, f32[64]{0}) tuple(update, other)
}
)");
  ASSERT_NE(module, nullptr);
  auto copied = CopyAliasedOutputsWrittenTooEarly(*module);
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_FALSE(*copied);
  auto assignment = Assign(*module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  EXPECT_TRUE(CheckBufferPlan(**assignment).ok()) << CheckBufferPlan(**assignment);
}

// The repro of a wrong training step (tests/hlo/mlp_train_step_donated.hlo):
// every plan CloneForExecution makes from it passes the checker.
TEST(ExecutionPreparationTest, PreparedPlansPassTheChecker) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(test_support::ReadTestData("hlo/mlp_train_step_donated.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();
  auto prepared = CloneForExecution(**module);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  auto assignment = Assign(**prepared);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  EXPECT_TRUE(CheckBufferPlan(**assignment).ok()) << CheckBufferPlan(**assignment);
}

constexpr char kSharedCallee[] = R"(
HloModule shared

double (x: f32[8]) -> f32[8] {
  x = f32[8]{0} parameter(0)
  ROOT y = f32[8]{0} add(x, x)
}

ENTRY main {
  a = f32[8]{0} parameter(0)
  b = f32[8]{0} call(a), to_apply=double
  ROOT c = f32[8]{0} call(b), to_apply=double
}
)";

TEST(FlattenCallGraphTest, EachCallSiteGetsItsOwnCallee) {
  std::unique_ptr<HloModule> module = ParseTestModule(kSharedCallee);
  ASSERT_NE(module, nullptr);
  auto changed = FlattenCallGraph(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloComputation& entry = *module->entry_computation();
  const HloInstruction* b = entry.GetInstructionWithName("b");
  const HloInstruction* c = entry.root_instruction();
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b->to_apply(), c->to_apply());
  EXPECT_EQ(module->computation_count(), 3);
  EXPECT_TRUE(VerifyHloModule(*module, {}).ok());
  // Flattening again changes nothing.
  EXPECT_FALSE(*FlattenCallGraph(*module));
}

TEST(FlattenCallGraphTest, AModuleWithASharedCalleeGetsOneSlicePerParameter) {
  std::unique_ptr<HloModule> module = ParseTestModule(kSharedCallee);
  ASSERT_NE(module, nullptr);
  auto prepared = CloneForExecution(*module);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  auto assignment = Assign(**prepared);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  for (const HloComputation* computation : (*prepared)->computations()) {
    for (const HloInstruction* parameter : computation->parameter_instructions()) {
      EXPECT_EQ((*assignment)->GetAllSlices(parameter, {}).size(), 1u) << parameter->name();
    }
  }
  EXPECT_TRUE(CheckBufferPlan(**assignment).ok());
}

// JAX passes a transpose's {0,1} result to a helper whose parameter is
// {1,0}.
constexpr char kLayoutAtCall[] = R"(
HloModule layouts

helper (x: f32[4,8]) -> f32[4,8] {
  x = f32[4,8]{1,0} parameter(0)
  ROOT y = f32[4,8]{1,0} negate(x)
}

ENTRY main {
  a = f32[8,4]{1,0} parameter(0)
  t = f32[4,8]{0,1} transpose(a), dimensions={1,0}
  ROOT c = f32[4,8]{1,0} call(t), to_apply=helper
}
)";

TEST(ControlFlowLayoutsTest, ACallOperandIsCopiedIntoTheParameterLayout) {
  std::unique_ptr<HloModule> module = ParseTestModule(kLayoutAtCall);
  ASSERT_NE(module, nullptr);
  auto changed = ConformControlFlowLayouts(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* call = module->entry_computation()->root_instruction();
  EXPECT_EQ(call->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(call->operand(0)->shape(), call->to_apply()->parameter_instruction(0)->shape());
}

TEST(BufferPlanCheckerTest, RefusesAValueMovedBetweenLayouts) {
  std::unique_ptr<HloModule> module = ParseTestModule(kLayoutAtCall);
  ASSERT_NE(module, nullptr);
  HloSchedule schedule(module.get());
  for (HloComputation* computation : module->MakeNonfusionComputations()) {
    schedule.set_sequence(computation, computation->MakeInstructionPostOrder());
  }
  ASSERT_TRUE(module->set_schedule(std::move(schedule)).ok());
  auto assignment = Assign(*module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  const absl::Status status = CheckBufferPlan(**assignment);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(status.message(), HasSubstr("the layouts differ"));
}

TEST(FusionExpansionTest, TheFusedInstructionsTakeTheFusionsPlaceInTheSchedule) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule fused, is_scheduled=true

add (x: f32[], y: f32[]) -> f32[] {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

body (p: f32[16,8]) -> f32[16] {
  p = f32[16,8]{1,0} parameter(0)
  e = f32[16,8]{1,0} exponential(p)
  z = f32[] constant(0)
  ROOT r = f32[16]{0} reduce(e, z), dimensions={1}, to_apply=add
}

ENTRY main {
  a = f32[16,8]{1,0} parameter(0)
  f = f32[16]{0} fusion(a), kind=kInput, calls=body
  ROOT n = f32[16]{0} negate(f)
}
)");
  ASSERT_NE(module, nullptr);
  auto expanded = ExpandFusions(*module, [](const HloInstruction&) { return true; });
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  EXPECT_EQ(*expanded, 1);
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(Count(entry, HloOpcode::kFusion), 0);
  EXPECT_EQ(Count(entry, HloOpcode::kReduce), 1);
  EXPECT_EQ(entry.root_instruction()->operand(0)->opcode(), HloOpcode::kReduce);
  EXPECT_TRUE(module->schedule().Verify().ok()) << module->schedule().Verify();
  EXPECT_EQ(module->schedule().sequence(&entry).size(), 5);  // a, exp, constant, reduce, negate
  EXPECT_TRUE(VerifyHloModule(*module, {}).ok());
}

}  // namespace
}  // namespace hmo
