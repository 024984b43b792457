// cpu-fusion: which producers end up inside which kLoop fusion, in which
// operand order, and that the module stays verifiable and printable.

#include "cpu/fusion/cpu_instruction_fusion.h"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/ir/literal.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/codegen/fusion_emitter.h"
#include "hmo/pass/pass_context.h"
#include "hmo/pass/pass_registry.h"
#include "hmo/plugin/plugin_registries.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "support/parsed_module.h"

namespace hmo::cpu {
namespace {

using test_support::ParseTestModule;

// Runs the pass; fails the test on error.
bool RunFusion(HloModule& module) {
  PluginRegistries registries;
  AnalysisManager analyses(module);
  PassContext context(analyses, registries);
  CpuInstructionFusion pass;
  absl::StatusOr<bool> changed = pass.Run(module, context);
  EXPECT_TRUE(changed.ok()) << changed.status();
  return changed.ok() && *changed;
}

// Verifies the module and checks that its text parses back to the same text.
void ExpectVerifiedAndRoundTrips(const HloModule& module) {
  absl::Status verified = VerifyHloModule(module);
  EXPECT_TRUE(verified.ok()) << verified << "\n" << module.ToString();
  const std::string text = module.ToString();
  auto reparsed = ParseHloModule(text);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << text;
  EXPECT_EQ((*reparsed)->ToString(), text);
  EXPECT_TRUE(VerifyHloModule(**reparsed).ok());
}

HloInstruction* Named(const HloModule& module, std::string_view name) {
  for (HloComputation* computation : module.computations()) {
    if (HloInstruction* found = computation->GetInstructionWithName(name)) return found;
  }
  return nullptr;
}

std::vector<std::string> OperandNames(const HloInstruction& instruction) {
  std::vector<std::string> names;
  for (const HloInstruction* operand : instruction.operands()) names.push_back(operand->name());
  return names;
}

int64_t CountOpcode(const HloComputation& computation, HloOpcode opcode) {
  int64_t count = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    count += instruction->opcode() == opcode;
  }
  return count;
}

int64_t CountOpcodeInModule(const HloModule& module, HloOpcode opcode) {
  int64_t count = 0;
  for (const HloComputation* computation : module.computations()) {
    count += CountOpcode(*computation, opcode);
  }
  return count;
}

TEST(CpuInstructionFusionTest, RegistrationCarriesNameAndCreatesThePass) {
  PassRegistration registration = MakePassRegistration<CpuInstructionFusion>();
  EXPECT_EQ(registration.name, "cpu-fusion");
  auto options = registration.options.Bind({});
  ASSERT_TRUE(options.ok()) << options.status();
  auto pass = registration.create(*options);
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_EQ((*pass)->name(), "cpu-fusion");
}

TEST(CpuInstructionFusionTest, FusesElementwiseChainWithOperandsInFusionOrder) {
  auto module = ParseTestModule(R"(
HloModule chain
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  n = f32[4] negate(p0)
  ROOT a = f32[4] add(n, p1)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloInstruction* root = module->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(root->name(), "fusion");
  EXPECT_EQ(root->fusion_kind(), FusionKind::kLoop);
  // The consumer's remaining operand first, then the producer's operands.
  EXPECT_EQ(OperandNames(*root), (std::vector<std::string>{"p1", "p0"}));
  const HloComputation* fused = root->fused_instructions_computation();
  EXPECT_EQ(fused->name(), "fused_computation");
  ASSERT_EQ(fused->num_parameters(), 2);
  EXPECT_EQ(fused->parameter_instruction(0)->name(), "param_0");
  const HloInstruction* fused_root = fused->root_instruction();
  ASSERT_EQ(fused_root->opcode(), HloOpcode::kAdd);
  ASSERT_EQ(fused_root->operand(0)->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(fused_root->operand(0)->operand(0), fused->parameter_instruction(1));
  EXPECT_EQ(fused_root->operand(1), fused->parameter_instruction(0));
  EXPECT_EQ(module->entry_computation()->instruction_count(), 3);
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, DoesNotDuplicateExpensiveProducerWithTwoUsers) {
  auto module = ParseTestModule(R"(
HloModule expensive
ENTRY e {
  p0 = f32[4] parameter(0)
  s = f32[] parameter(1)
  ex = f32[4] exponential(p0)
  b = f32[4] broadcast(s), dimensions={}
  x = f32[4] add(ex, b)
  y = f32[4] multiply(ex, p0)
  ROOT t = (f32[4], f32[4]) tuple(x, y)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kExp), 1);
  EXPECT_EQ(CountOpcodeInModule(*module, HloOpcode::kExp), 1);
  const HloInstruction* x = entry->root_instruction()->operand(0);
  ASSERT_EQ(x->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(OperandNames(*x), (std::vector<std::string>{"ex", "s"}));
  // y has nothing to fuse: exp stays outside and multiply stays plain.
  EXPECT_EQ(entry->root_instruction()->operand(1)->opcode(), HloOpcode::kMultiply);
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, FusesExpensiveProducerWhenAllItsUsersJoinTheFusion) {
  auto module = ParseTestModule(R"(
HloModule all_users
ENTRY e {
  p0 = f32[4] parameter(0)
  ex = f32[4] exponential(p0)
  n = f32[4] negate(ex)
  ROOT a = f32[4] add(n, ex)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloInstruction* root = module->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(OperandNames(*root), (std::vector<std::string>{"p0"}));
  EXPECT_EQ(CountOpcodeInModule(*module, HloOpcode::kExp), 1);
  EXPECT_EQ(CountOpcode(*root->fused_instructions_computation(), HloOpcode::kExp), 1);
  EXPECT_EQ(module->entry_computation()->instruction_count(), 2);
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, FusesCheapBroadcastIntoBothConsumers) {
  auto module = ParseTestModule(R"(
HloModule broadcast_twice
ENTRY e {
  p0 = f32[2,3] parameter(0)
  s = f32[3] parameter(1)
  b = f32[2,3] broadcast(s), dimensions={1}
  x = f32[2,3] add(p0, b)
  y = f32[2,3] multiply(p0, b)
  ROOT t = (f32[2,3], f32[2,3]) tuple(x, y)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kBroadcast), 0);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kFusion), 2);
  for (int64_t i = 0; i < 2; ++i) {
    const HloInstruction* fusion = entry->root_instruction()->operand(i);
    ASSERT_EQ(fusion->opcode(), HloOpcode::kFusion);
    EXPECT_EQ(OperandNames(*fusion), (std::vector<std::string>{"p0", "s"}));
    const HloComputation* fused = fusion->fused_instructions_computation();
    ASSERT_EQ(CountOpcode(*fused, HloOpcode::kBroadcast), 1);
    EXPECT_EQ(fused->root_instruction()->operand(1)->opcode(), HloOpcode::kBroadcast);
    EXPECT_EQ(fused->root_instruction()->operand(1)->dimensions(), std::vector<int64_t>{1});
  }
  // Distinct names for the two fusions and their computations.
  EXPECT_NE(Named(*module, "fusion"), nullptr);
  EXPECT_NE(Named(*module, "fusion.1"), nullptr);
  EXPECT_NE(module->GetComputationWithName("fused_computation"), nullptr);
  EXPECT_NE(module->GetComputationWithName("fused_computation.1"), nullptr);
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, LeavesReduceAndDotUnfusedAndScalarComputationsAlone) {
  auto module = ParseTestModule(R"(
HloModule reduce_dot
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[2,3] parameter(0)
  p1 = f32[3,2] parameter(1)
  n0 = f32[2,3] negate(p0)
  d = f32[2,2] dot(n0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  r = f32[2] reduce(d, zero), dimensions={1}, to_apply=sum
  n = f32[2] negate(r)
  ROOT q = f32[2] sqrt(n)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kDot), 1);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kReduce), 1);
  // negate -> dot and dot -> reduce are not loop fusions; reduce -> negate
  // -> sqrt is: the reduce stays the fusion's operand.
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kNegate), 1);
  const HloInstruction* root = entry->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(OperandNames(*root), (std::vector<std::string>{"r"}));
  EXPECT_EQ(module->GetComputationWithName("sum")->instruction_count(), 3);
  EXPECT_EQ(CountOpcodeInModule(*module, HloOpcode::kFusion), 1);
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, AlreadyFusedModuleIsUnchanged) {
  auto module = ParseTestModule(R"(
HloModule chain
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  c = f32[] constant(2)
  b = f32[4] broadcast(c), dimensions={}
  n = f32[4] negate(p0)
  m = f32[4] multiply(n, b)
  ROOT a = f32[4] add(m, p1)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  // The scalar constant went in with the broadcast: only parameters remain.
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(OperandNames(*root), (std::vector<std::string>{"p1", "p0"}));
  EXPECT_EQ(CountOpcode(*module->entry_computation(), HloOpcode::kConstant), 0);
  const std::string once = module->ToString();
  EXPECT_FALSE(RunFusion(*module));
  EXPECT_EQ(module->ToString(), once);

  auto hand_fused = ParseTestModule(R"(
HloModule hand_fused
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[4] parameter(0)
  y = f32[4] negate(x)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(y, zero), dimensions={0}, to_apply=sum
}
ENTRY e {
  p0 = f32[4] parameter(0)
  ROOT f = f32[] fusion(p0), kind=kInput, calls=fused
}
)");
  const std::string before = hand_fused->ToString();
  EXPECT_FALSE(RunFusion(*hand_fused));
  EXPECT_EQ(hand_fused->ToString(), before);
}

TEST(CpuInstructionFusionTest, FusesElementwiseProducersIntoAReduction) {
  // The squares and the loop fusion feeding them run inside the reduction
  // loop (a kInput fusion, as XLA's reduction fusions); the exponential is
  // also an output, and expensive: it stays outside.
  auto module = ParseTestModule(R"(
HloModule reduction
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[8,16] parameter(0)
  ROOT n = f32[8,16] negate(x)
}
ENTRY e {
  p0 = f32[8,16] parameter(0)
  f = f32[8,16] fusion(p0), kind=kLoop, calls=fused
  sq = f32[8,16] multiply(f, f)
  zero = f32[] constant(0)
  r = f32[8] reduce(sq, zero), dimensions={1}, to_apply=sum
  e = f32[8,16] exponential(p0)
  r2 = f32[16] reduce(e, zero), dimensions={0}, to_apply=sum
  ROOT t = (f32[8], f32[16], f32[8,16]) tuple(r, r2, e)
}
)");
  std::unique_ptr<HloModule> reference = module->Clone();
  ASSERT_TRUE(RunFusion(*module));
  const HloInstruction* root = module->entry_computation()->root_instruction();
  const HloInstruction* r = root->operand(0);
  ASSERT_EQ(r->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(r->fusion_kind(), FusionKind::kInput);
  EXPECT_EQ(r->fused_instructions_computation()->root_instruction()->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(OperandNames(*r), (std::vector<std::string>{"p0"}));
  // The exponential has another user: the second reduction reads it.
  const HloInstruction* r2 = root->operand(1);
  EXPECT_EQ(root->operand(2)->opcode(), HloOpcode::kExp);
  EXPECT_TRUE(r2->opcode() == HloOpcode::kReduce ||
              std::find(r2->operands().begin(), r2->operands().end(), root->operand(2)) !=
                  r2->operands().end());
  ExpectVerifiedAndRoundTrips(*module);
  std::vector<Literal> arguments;
  Literal x(ShapeUtil::MakeShape(PrimitiveType::F32, {8, 16}));
  for (int64_t i = 0; i < x.element_count(); ++i) x.SetFromDouble(i, (i % 13) / 4.0 - 1.5);
  arguments.push_back(std::move(x));
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(*reference, arguments);
  absl::StatusOr<Literal> actual = HloEvaluator().Evaluate(*module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(*expected, *actual);
}

TEST(CpuInstructionFusionTest, LargeReductionsKeepTheirProducersLoops) {
  // 1 MiB inputs: the producers keep their own (partitioned) loops; the
  // 32 KiB reduction hosts its producer.
  auto module = ParseTestModule(R"(
HloModule large
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[512,512] parameter(0)
  rows_in = f32[512,512] multiply(p0, p0)
  zero = f32[] constant(0)
  rows = f32[512] reduce(rows_in, zero), dimensions={1}, to_apply=sum
  columns_in = f32[512,512] negate(p0)
  columns = f32[512] reduce(columns_in, zero), dimensions={0}, to_apply=sum
  p1 = f32[64,128] parameter(1)
  small_in = f32[64,128] negate(p1)
  small = f32[64] reduce(small_in, zero), dimensions={1}, to_apply=sum
  ROOT t = (f32[512], f32[512], f32[64]) tuple(rows, columns, small)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(root->operand(0)->operand(0)->opcode(), HloOpcode::kMultiply);
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kReduce);
  ASSERT_EQ(root->operand(2)->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(root->operand(2)->fusion_kind(), FusionKind::kInput);
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, ConstantsOnlyJoinExistingFusionsAndOnlyWhenScalar) {
  auto module = ParseTestModule(R"(
HloModule constants
ENTRY e {
  p0 = f32[4] parameter(0)
  s = f32[] parameter(1)
  two = f32[] constant(2)
  lonely = f32[] multiply(s, two)
  big = f32[4] constant({1, 2, 3, 4})
  n = f32[4] negate(p0)
  a = f32[4] add(n, big)
  ROOT t = (f32[], f32[4]) tuple(lonely, a)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloInstruction* root = module->entry_computation()->root_instruction();
  // multiply(s, constant) alone would be a fusion of a constant and one
  // instruction: left as is.
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kMultiply);
  const HloInstruction* fusion = root->operand(1);
  ASSERT_EQ(fusion->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(OperandNames(*fusion), (std::vector<std::string>{"big", "p0"}));
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, MergesLoopFusionProducerAndKeepsRelayoutsOut) {
  auto module = ParseTestModule(R"(
HloModule producers
inner {
  x = f32[2,3] parameter(0)
  ROOT y = f32[2,3] negate(x)
}
ENTRY e {
  p0 = f32[2,3]{1,0} parameter(0)
  p1 = f32[3,2]{1,0} parameter(1)
  f = f32[2,3]{1,0} fusion(p0), kind=kLoop, calls=inner
  tr = f32[2,3]{1,0} transpose(p1), dimensions={1,0}
  rs = f32[2,3]{0,1} reshape(p0)
  a = f32[2,3]{1,0} add(f, tr)
  ROOT m = f32[2,3]{1,0} multiply(a, rs)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloComputation* entry = module->entry_computation();
  const HloInstruction* root = entry->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  // add and the inlined negate are inside; transpose and the column-major
  // reshape stay outside.
  EXPECT_EQ(OperandNames(*root), (std::vector<std::string>{"rs", "tr", "p0"}));
  EXPECT_EQ(CountOpcode(*root->fused_instructions_computation(), HloOpcode::kNegate), 1);
  EXPECT_EQ(module->GetComputationWithName("inner"), nullptr);
  EXPECT_EQ(CountOpcodeInModule(*module, HloOpcode::kFusion), 1);
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, FusesRowMajorReshapeBitcastAndSlice) {
  auto module = ParseTestModule(R"(
HloModule views
ENTRY e {
  p0 = f32[2,6]{1,0} parameter(0)
  p1 = f32[3,4]{1,0} parameter(1)
  p2 = f32[12]{0} parameter(2)
  rs = f32[3,4]{1,0} reshape(p0)
  bc = f32[3,4]{1,0} bitcast(p2)
  sl = f32[3,4]{1,0} slice(p1), slice={[0:3], [0:4]}
  a = f32[3,4]{1,0} add(rs, bc)
  ROOT m = f32[3,4]{1,0} multiply(a, sl)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloInstruction* root = module->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(OperandNames(*root), (std::vector<std::string>{"p1", "p0", "p2"}));
  EXPECT_EQ(module->entry_computation()->instruction_count(), 4);
  const HloComputation* fused = root->fused_instructions_computation();
  EXPECT_EQ(CountOpcode(*fused, HloOpcode::kReshape), 1);
  EXPECT_EQ(CountOpcode(*fused, HloOpcode::kBitcast), 1);
  EXPECT_EQ(CountOpcode(*fused, HloOpcode::kSlice), 1);
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, RespectsControlDependencies) {
  auto module = ParseTestModule(R"(
HloModule control
ENTRY e {
  p0 = f32[4] parameter(0)
  n = f32[4] negate(p0)
  c = f32[4] cosine(p0)
  x = f32[4] add(n, p0), control-predecessors={c}
  ROOT y = f32[4] multiply(x, c)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloComputation* entry = module->entry_computation();
  // c has a control successor: it stays. x's control edge moves to the fusion.
  const HloInstruction* c = entry->GetInstructionWithName("c");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->control_successors().size(), 1u);
  const HloInstruction* successor = c->control_successors().front();
  EXPECT_EQ(successor->opcode(), HloOpcode::kFusion);
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, KeepsTheScheduleValid) {
  auto module = ParseTestModule(R"(
HloModule scheduled, is_scheduled=true
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  n = f32[4] negate(p0)
  ex = f32[4] exponential(p1)
  m = f32[4] multiply(n, ex)
  l = f32[4] log(ex)
  ROOT t = (f32[4], f32[4]) tuple(m, l)
}
)");
  ASSERT_TRUE(RunFusion(*module));
  ASSERT_TRUE(module->has_schedule());
  absl::Status schedule_ok = module->schedule().Verify();
  EXPECT_TRUE(schedule_ok.ok()) << schedule_ok;
  const HloInstructionSequence& sequence =
      module->schedule().sequence(module->entry_computation());
  std::vector<std::string> names;
  for (const HloInstruction* instruction : sequence.instructions()) names.push_back(instruction->name());
  // The multiply's fusion took its place; negate left the sequence; exp has
  // two users and stays; log has nothing cheap to fuse.
  EXPECT_EQ(names, (std::vector<std::string>{"p0", "p1", "ex", "fusion", "l", "t"}));
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, FusesInsideWhileBodies) {
  auto module = ParseTestModule(R"(
HloModule loop
cond {
  c = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(i, k), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  n = f32[4] negate(v)
  v1 = f32[4] multiply(n, v)
  ROOT r = (s32[], f32[4]) tuple(i1, v1)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, p)
  ROOT w = (s32[], f32[4]) while(init), condition=cond, body=body
}
)");
  ASSERT_TRUE(RunFusion(*module));
  const HloComputation* body = module->GetComputationWithName("body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kFusion), 1);
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kNegate), 0);
  ExpectVerifiedAndRoundTrips(*module);
}

class RealModuleFusionTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RealModuleFusionTest, FusesAndStaysVerifiable) {
  auto module = ParseHloModuleFile(std::string(HMO_TEST_DATA_DIR) + "/hlo/" + GetParam());
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyHloModule(**module).ok());
  const int64_t before = (*module)->instruction_count();
  EXPECT_TRUE(RunFusion(**module));
  EXPECT_GT(CountOpcodeInModule(**module, HloOpcode::kFusion), 0);
  EXPECT_LT((*module)->entry_computation()->instruction_count(), before);
  ExpectVerifiedAndRoundTrips(**module);
  // A second run finds nothing more to fuse.
  EXPECT_FALSE(RunFusion(**module));
}

INSTANTIATE_TEST_SUITE_P(Modules, RealModuleFusionTest,
                         ::testing::Values("graphsage_tf.hlo", "ssd_mobilenet_tf.hlo"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('.'));
                         });

// The evaluator gives `fused` the values it gives `reference` (the module
// before fusion) on fixed arguments.
void ExpectSameValues(const HloModule& reference, const HloModule& fused) {
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter : reference.entry_computation()->parameter_instructions()) {
    Literal value(parameter->shape());
    for (int64_t i = 0; i < value.element_count(); ++i) value.SetFromDouble(i, (i % 7) / 2.0 - 1.0);
    arguments.push_back(std::move(value));
  }
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(reference, arguments);
  absl::StatusOr<Literal> actual = HloEvaluator().Evaluate(fused, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(*expected, *actual);
}

TEST(CpuInstructionFusionTest, DotWithElementwiseEpilogueBecomesOneOutputFusion) {
  auto module = ParseTestModule(R"(
HloModule dense
ENTRY e {
  x = f32[8,16]{1,0} parameter(0)
  w = f32[16,12]{1,0} parameter(1)
  bias = f32[12]{0} parameter(2)
  d = f32[8,12]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[8,12]{1,0} broadcast(bias), dimensions={1}
  s = f32[8,12]{1,0} add(d, b)
  zero = f32[] constant(0)
  z = f32[8,12]{1,0} broadcast(zero), dimensions={}
  ROOT r = f32[8,12]{1,0} maximum(s, z)
}
)");
  std::unique_ptr<HloModule> reference = module->Clone();
  ASSERT_TRUE(RunFusion(*module));
  const HloComputation* entry = module->entry_computation();
  const HloInstruction* root = entry->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(root->fusion_kind(), FusionKind::kOutput);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kDot), 0);
  EXPECT_EQ(CountOpcode(*root->fused_instructions_computation(), HloOpcode::kDot), 1);
  // The loop fusion's operand (bias), then the dot's.
  EXPECT_EQ(OperandNames(*root), (std::vector<std::string>{"bias", "x", "w"}));
  EXPECT_EQ(entry->instruction_count(), 4);
  ExpectVerifiedAndRoundTrips(*module);
  ExpectSameValues(*reference, *module);
}

TEST(CpuInstructionFusionTest, DotsStayOutOfEpiloguesThatReadThemElsewhere) {
  // d1 has a second user; d2 is also read at row 0 (other elements than
  // the consumer's own index), through a slice fused with it; d3 is an f16 dot no runtime GEMM
  // computes. None becomes an output fusion.
  auto module = ParseTestModule(R"(
HloModule kept
ENTRY e {
  x = f32[8,8]{1,0} parameter(0)
  h = f16[8,8]{1,0} parameter(1)
  d1 = f32[8,8]{1,0} dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n1 = f32[8,8]{1,0} negate(d1)
  d2 = f32[8,8]{1,0} dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  row = f32[1,8]{1,0} slice(d2), slice={[0:1], [0:8]}
  flat = f32[8]{0} reshape(row)
  rows = f32[8,8]{1,0} broadcast(flat), dimensions={1}
  n2 = f32[8,8]{1,0} add(d2, rows)
  d3 = f16[8,8]{1,0} dot(h, h), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n3 = f16[8,8]{1,0} negate(d3)
  ROOT t = (f32[8,8]{1,0}, f32[8,8]{1,0}, f32[8,8]{1,0}, f16[8,8]{1,0}) tuple(n1, d1, n2, n3)
}
)");
  RunFusion(*module);
  EXPECT_EQ(CountOpcode(*module->entry_computation(), HloOpcode::kDot), 3);
  for (const HloInstruction* instruction : module->entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kFusion) {
      EXPECT_NE(instruction->fusion_kind(), FusionKind::kOutput) << instruction->name();
    }
  }
  ExpectVerifiedAndRoundTrips(*module);
}

TEST(CpuInstructionFusionTest, RuntimeConvolutionWithEpilogueBecomesOneOutputFusion) {
  // c1 is in the runtime convolution's form (b01f_01io->b01f, row-major)
  // and read by its bias-add + relu only: one output fusion. c2 (bf01
  // order) is computed by generated loops and stays a kernel of its own.
  auto module = ParseTestModule(R"(
HloModule convs
ENTRY e {
  x = f32[1,6,6,3]{3,2,1,0} parameter(0)
  w = f32[3,3,3,4]{3,2,1,0} parameter(1)
  bias = f32[4]{0} parameter(2)
  c1 = f32[1,6,6,4]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  b = f32[1,6,6,4]{3,2,1,0} broadcast(bias), dimensions={3}
  s = f32[1,6,6,4]{3,2,1,0} add(c1, b)
  zero = f32[] constant(0)
  z = f32[1,6,6,4]{3,2,1,0} broadcast(zero), dimensions={}
  r = f32[1,6,6,4]{3,2,1,0} maximum(s, z)
  y = f32[1,3,6,6]{3,2,1,0} parameter(3)
  v = f32[3,3,3,4]{3,2,1,0} parameter(4)
  c2 = f32[1,6,6,4]{3,2,1,0} convolution(y, v), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_01io->b01f
  n = f32[1,6,6,4]{3,2,1,0} negate(c2)
  ROOT t = (f32[1,6,6,4]{3,2,1,0}, f32[1,6,6,4]{3,2,1,0}) tuple(r, n)
}
)");
  std::unique_ptr<HloModule> reference = module->Clone();
  ASSERT_TRUE(RunFusion(*module));
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kConvolution), 1);
  const HloInstruction* fused_relu = entry->root_instruction()->operand(0);
  ASSERT_EQ(fused_relu->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(fused_relu->fusion_kind(), FusionKind::kOutput);
  EXPECT_EQ(CountOpcode(*fused_relu->fused_instructions_computation(), HloOpcode::kConvolution), 1);
  EXPECT_EQ(entry->root_instruction()->operand(1)->operand(0)->opcode(), HloOpcode::kConvolution);
  ExpectVerifiedAndRoundTrips(*module);
  ExpectSameValues(*reference, *module);
}

// Reductions of one input along the same dimensions (layer norm's sum and
// sum of squares, a max beside them) become one multi-output reduction
// fusion read through get-tuple-elements; a reduction of another form
// (along other dimensions), and one reading what another computes (the
// variance of the deviations from the mean), stay apart.
TEST(CpuInstructionFusionTest, SiblingReductionsBecomeOneMultiOutputFusion) {
  auto module = ParseTestModule(R"(
HloModule siblings
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[64,128] parameter(0)
  zero = f32[] constant(0)
  lowest = f32[] constant(-inf)
  s = f32[64] reduce(x, zero), dimensions={1}, to_apply=sum
  sq = f32[64,128] multiply(x, x)
  s2 = f32[64] reduce(sq, zero), dimensions={1}, to_apply=sum
  m = f32[64] reduce(x, lowest), dimensions={1}, to_apply=mx
  columns = f32[128] reduce(x, zero), dimensions={0}, to_apply=sum
  mean = f32[64] negate(s)
  mb = f32[64,128] broadcast(mean), dimensions={0}
  d = f32[64,128] add(x, mb)
  d2 = f32[64,128] multiply(d, d)
  var = f32[64] reduce(d2, zero), dimensions={1}, to_apply=sum
  ROOT t = (f32[64], f32[64], f32[128], f32[64], f32[64]) tuple(s2, m, columns, var, s)
}
)");
  std::unique_ptr<HloModule> reference = module->Clone();
  ASSERT_TRUE(RunFusion(*module));
  ExpectVerifiedAndRoundTrips(*module);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  // s2, m and s: get-tuple-elements of one fusion whose root is a tuple of
  // three reduces; the columns and the variance are kernels of their own.
  const HloInstruction* multi = nullptr;
  for (int64_t i : {0, 1, 4}) {
    const HloInstruction* output = root->operand(i);
    ASSERT_EQ(output->opcode(), HloOpcode::kGetTupleElement) << output->ToString();
    if (multi == nullptr) multi = output->operand(0);
    EXPECT_EQ(output->operand(0), multi);
  }
  ASSERT_EQ(multi->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(multi->fusion_kind(), FusionKind::kInput);
  EXPECT_EQ(OperandNames(*multi), (std::vector<std::string>{"x"}));
  EXPECT_EQ(codegen::FusedRootReduces(*multi).size(), 3u);
  EXPECT_TRUE(codegen::IsReductionFusionEmittable(*multi));
  EXPECT_NE(root->operand(2)->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_NE(root->operand(3)->opcode(), HloOpcode::kGetTupleElement);
  ExpectSameValues(*reference, *module);
}

TEST(CpuInstructionFusionTest, ScheduledComputationsKeepTheirSiblingReductionsApart) {
  auto module = ParseTestModule(R"(
HloModule scheduled, is_scheduled=true
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,128] parameter(0)
  zero = f32[] constant(0)
  s = f32[64] reduce(x, zero), dimensions={1}, to_apply=sum
  n = f32[64] negate(s)
  s2 = f32[64] reduce(x, zero), dimensions={1}, to_apply=sum
  ROOT t = (f32[64], f32[64]) tuple(n, s2)
}
)");
  ASSERT_TRUE(module->has_schedule());
  RunFusion(*module);
  EXPECT_EQ(CountOpcodeInModule(*module, HloOpcode::kGetTupleElement), 0);
  EXPECT_TRUE(module->schedule().Verify().ok());
}

}  // namespace
}  // namespace hmo::cpu
