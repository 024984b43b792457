#include "hmo/ir/hlo_module.h"

#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"

namespace hmo {
namespace {

constexpr std::string_view kModule = R"(HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
unused {
  ROOT u = f32[] parameter(0)
}
fused {
  fp = f32[4] parameter(0)
  ROOT fn = f32[4] negate(fp)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  f = f32[4] fusion(p), kind=kLoop, calls=fused
  r = f32[] reduce(f, z), dimensions={0}, to_apply=add
  ROOT t = (f32[4], f32[]) tuple(f, r)
})";

std::vector<std::string> Names(const std::vector<HloComputation*>& v) {
  std::vector<std::string> out;
  for (auto* c : v) out.push_back(c->name());
  return out;
}

TEST(HloModuleTest, ComputationOrders) {
  auto m = ParseHloModule(kModule);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(Names((*m)->MakeComputationPostOrder()),
            std::vector<std::string>({"add", "unused", "fused", "e"}));
  EXPECT_EQ(Names((*m)->MakeNonfusionComputations()), std::vector<std::string>({"add", "unused", "e"}));
  EXPECT_EQ((*m)->entry_computation_layout().ToString(), "(f32[4])->(f32[4], f32[])");
}

TEST(HloModuleTest, ScheduleVerifyAndUpdate) {
  auto parsed = ParseHloModule(kModule);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  HloModule& m = **parsed;
  ASSERT_TRUE(m.has_schedule());
  EXPECT_TRUE(m.schedule().Verify().ok());
  HloComputation* e = m.entry_computation();
  EXPECT_EQ(m.schedule().sequence(e).size(), 5);
  // Add an instruction: Verify notices it is unscheduled; Update places it
  // after its operand.
  HloInstruction* f = e->GetInstructionWithName("f");
  HloInstruction* c = e->AddInstruction(HloInstruction::CreateCopy(f->shape(), f));
  ASSERT_TRUE(e->root_instruction()->ReplaceOperandWith(0, c).ok());
  absl::Status st = m.schedule().Verify();
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "instruction copy of computation e is not scheduled");
  ASSERT_TRUE(m.schedule().Update().ok());
  std::vector<std::string> order;
  for (HloInstruction* i : m.schedule().sequence(e).instructions()) order.push_back(i->name());
  EXPECT_EQ(order, std::vector<std::string>({"p", "z", "f", "copy", "r", "t"}));
  // A schedule with an operand after its user is rejected.
  HloSchedule bad(&m);
  for (HloComputation* comp : m.MakeNonfusionComputations()) {
    auto seq = comp->MakeInstructionPostOrder();
    if (comp == e) std::swap(seq[0], seq[2]);
    bad.set_sequence(comp, seq);
  }
  EXPECT_FALSE(m.set_schedule(std::move(bad)).ok());
}

TEST(HloModuleTest, CloneIsDeepAndPrintsTheSame) {
  auto parsed = ParseHloModule(kModule);
  ASSERT_TRUE(parsed.ok());
  HloModule& m = **parsed;
  auto clone = m.Clone("copy");
  EXPECT_EQ(clone->name(), "m-copy");
  EXPECT_NE(clone->entry_computation(), m.entry_computation());
  EXPECT_EQ(clone->entry_computation()->root_instruction()->operand(0)->called_computations()[0],
            clone->GetComputationWithName("fused"));
  clone->set_name("m");
  EXPECT_EQ(PrintHloModule(*clone), PrintHloModule(m));
  EXPECT_TRUE(clone->schedule().Verify().ok());
  EXPECT_TRUE(clone->GetComputationWithName("fused")->IsFusionComputation());
}

TEST(HloModuleTest, ReplaceContentsWithTakesAChangedCloneKeepingTheName) {
  auto parsed = ParseHloModule(kModule);
  ASSERT_TRUE(parsed.ok());
  HloModule& m = **parsed;
  auto clone = m.Clone("attempt");
  HloComputation* e = clone->entry_computation();
  HloInstruction* f = e->GetInstructionWithName("f");
  HloInstruction* c = e->AddInstruction(HloInstruction::CreateCopy(f->shape(), f));
  ASSERT_TRUE(e->root_instruction()->ReplaceOperandWith(0, c).ok());
  ASSERT_TRUE(clone->schedule().Update().ok());
  clone->set_name("m");
  const std::string expected = PrintHloModule(*clone);

  m.ReplaceContentsWith(std::move(clone));
  EXPECT_EQ(m.name(), "m");
  EXPECT_EQ(PrintHloModule(m), expected);
  EXPECT_EQ(m.entry_computation(), e);
  EXPECT_EQ(e->parent(), &m);
  EXPECT_EQ(m.schedule().module(), &m);
  EXPECT_TRUE(m.schedule().Verify().ok());
  // The name registry came along: a new instruction gets a fresh name.
  HloInstruction* again = e->AddInstruction(HloInstruction::CreateCopy(f->shape(), f));
  EXPECT_EQ(again->name(), "copy.1");
}

TEST(HloModuleTest, RemoveComputations) {
  auto parsed = ParseHloModule(kModule);
  ASSERT_TRUE(parsed.ok());
  HloModule& m = **parsed;
  EXPECT_FALSE(m.RemoveComputation(m.GetComputationWithName("add")).ok());  // called by reduce
  EXPECT_FALSE(m.RemoveComputation(m.entry_computation()).ok());
  EXPECT_EQ(m.RemoveUnusedComputations(), 1);
  EXPECT_EQ(m.GetComputationWithName("unused"), nullptr);
  EXPECT_TRUE(m.schedule().Verify().ok());
}

TEST(HloModuleTest, RemoveDeadInstructionTakesItsScheduleEntryAndFusedComputation) {
  auto parsed = ParseHloModule(kModule);
  ASSERT_TRUE(parsed.ok());
  HloModule& m = **parsed;
  HloComputation* e = m.entry_computation();
  HloInstruction* f = e->GetInstructionWithName("f");
  HloInstruction* p = e->GetInstructionWithName("p");
  // Still read by the reduce and the tuple: refused, nothing changed.
  EXPECT_FALSE(m.RemoveDeadInstruction(f).ok());
  EXPECT_NE(m.GetComputationWithName("fused"), nullptr);
  // Once nothing reads it: the fusion, its schedule entry and its fused
  // computation go; the schedule still verifies.
  ASSERT_TRUE(e->GetInstructionWithName("r")->ReplaceOperandWith(0, p).ok());
  ASSERT_TRUE(e->root_instruction()->ReplaceOperandWith(0, p).ok());
  ASSERT_TRUE(m.RemoveDeadInstruction(f).ok());
  EXPECT_EQ(e->GetInstructionWithName("f"), nullptr);
  EXPECT_EQ(m.GetComputationWithName("fused"), nullptr);
  EXPECT_EQ(m.schedule().sequence(e).size(), 4);
  EXPECT_TRUE(m.schedule().Verify().ok());
}

TEST(HloModuleTest, UniqueNames) {
  HloModule m("names");
  EXPECT_EQ(m.GetUniqueName("add"), "add");
  EXPECT_EQ(m.GetUniqueName("add"), "add.1");
  EXPECT_EQ(m.GetUniqueName("add.1"), "add.2");
  EXPECT_TRUE(m.IsNameUsed("add.2"));
  EXPECT_FALSE(m.RegisterName("add"));
}

TEST(HloInputOutputAliasConfigTest, SetUpAndQuery) {
  HloInputOutputAliasConfig config;
  ASSERT_TRUE(config.SetUpAlias({0}, 1, {}, HloInputOutputAliasConfig::kMustAlias).ok());
  ASSERT_TRUE(config.SetUpAlias({1, 2}, 0, {3}).ok());
  EXPECT_FALSE(config.SetUpAlias({0}, 2, {}).ok());   // output already aliased
  EXPECT_FALSE(config.SetUpAlias({5}, 1, {}).ok());   // parameter already aliased
  EXPECT_TRUE(config.ParameterHasAlias(0, {3}));
  EXPECT_TRUE(config.ParameterMustAlias(1, {}));
  EXPECT_FALSE(config.ParameterMustAlias(0, {3}));
  EXPECT_TRUE(config.OutputHasAlias({1, 2}));
  EXPECT_EQ(config.GetAliasedOutput(0, {3}), ShapeIndex({1, 2}));
  EXPECT_EQ(config.GetAliasedParameter({0})->parameter_number, 1);
  EXPECT_EQ(config.ToString(), "{ {0}: (1, {}, must-alias), {1,2}: (0, {3}, may-alias) }");
  int n = 0;
  config.ForEachAlias([&](const ShapeIndex&, const HloInputOutputAliasConfig::Alias&) { ++n; });
  EXPECT_EQ(n, 2);
  Shape p0(std::vector<Shape>{Shape(PrimitiveType::F32, {2}), Shape(PrimitiveType::F32, {2}),
                              Shape(PrimitiveType::F32, {2}), Shape(PrimitiveType::F32, {8})});
  Shape out(std::vector<Shape>{Shape(PrimitiveType::S32, {4}),
                               Shape(std::vector<Shape>{Shape(PrimitiveType::F32, {}),
                                                        Shape(PrimitiveType::F32, {}),
                                                        Shape(PrimitiveType::F32, {8})})});
  EXPECT_TRUE(config.Verify({p0, Shape(PrimitiveType::F32, {4})}, out).ok());
  EXPECT_FALSE(config.Verify({p0, Shape(PrimitiveType::F32, {5})}, out).ok());
  HloBufferDonorConfig donors;
  ASSERT_TRUE(donors.AddBufferDonor(0, {}).ok());
  EXPECT_FALSE(donors.AddBufferDonor(0, {}).ok());
  ASSERT_TRUE(donors.AddBufferDonor(1, {0}).ok());
  EXPECT_EQ(donors.ToString(), "{ (0, {}), (1, {0}) }");
}

}  // namespace
}  // namespace hmo
