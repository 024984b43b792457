// Structural rules: entry, names, parents, roots, parameters, operand counts,
// edge symmetry, control edges, called computations, fusion callers, cycles.
// Most violations cannot be written in HLO text (the parser refuses them), so
// the tests parse a valid module and break it through the IR API.

#include <gtest/gtest.h>

#include <memory>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/hlo_verifier.h"
#include "verifier_test_util.h"

namespace hmo {
namespace {

using testing::FirstViolationIs;
using testing::HasViolation;
using testing::Parse;
using testing::VerifiesOk;

const Shape kF32x2(PrimitiveType::F32, {2});

HloInstruction* Find(const HloModule& m, std::string_view computation, std::string_view name) {
  HloComputation* c = m.GetComputationWithName(computation);
  return c ? c->GetInstructionWithName(name) : nullptr;
}

constexpr char kChain[] = R"(
HloModule m
other {
  q = f32[2] parameter(0)
  ROOT nq = f32[2] negate(q)
}
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p)
  b = f32[2] negate(a)
  ROOT r = f32[2] call(b), to_apply=other
})";

TEST(StructureVerifierTest, ChainVerifies) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST(StructureVerifierTest, EntryComputationMustExist) {
  HloModule m("no_entry");
  auto c = std::make_unique<HloComputation>("c");
  HloInstruction* p = c->AddInstruction(HloInstruction::CreateParameter(0, kF32x2, "p"));
  c->set_root_instruction(p);
  m.AddEmbeddedComputation(std::move(c));
  EXPECT_TRUE(FirstViolationIs(m, {"entry-computation", "", "", "module has no entry computation"}));
  EXPECT_EQ(VerifyHloModule(m).message(),
            "module no_entry: module has no entry computation (rule: entry-computation)");
}

TEST(StructureVerifierTest, InstructionNamesUniquePerComputation) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  Find(*m, "main", "b")->SetAndSanitizeName("a");
  EXPECT_TRUE(FirstViolationIs(*m, {"unique-names", "a", "main",
                                    "instruction name is used more than once in the computation"}));
}

TEST(StructureVerifierTest, SameNameInDifferentComputationsIsFine) {
  auto m = Parse(R"(
HloModule m
other {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY main {
  p = f32[2] parameter(0)
  ROOT n = f32[2] call(p), to_apply=other
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST(StructureVerifierTest, InstructionParent) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloInstruction* a = Find(*m, "main", "a");
  HloComputation* main = a->parent();
  a->set_parent(m->GetComputationWithName("other"));
  EXPECT_TRUE(FirstViolationIs(*m, {"instruction-parent", "a", "main",
                                    "instruction is listed in the computation but its parent is other"}));
  a->set_parent(main);
}

TEST(StructureVerifierTest, RootMustExist) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloComputation* other = m->GetComputationWithName("other");
  HloInstruction* root = other->root_instruction();
  other->set_root_instruction(nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"root", "", "other", "computation has no root instruction"}));
  other->set_root_instruction(root);
}

TEST(StructureVerifierTest, RootMustBelongToComputation) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloComputation* other = m->GetComputationWithName("other");
  HloInstruction* root = other->root_instruction();
  other->set_root_instruction(Find(*m, "main", "a"));
  EXPECT_TRUE(FirstViolationIs(*m, {"root", "", "other",
                                    "root instruction a does not belong to the computation"}));
  other->set_root_instruction(root);
}

TEST(StructureVerifierTest, ParameterNumbersInRange) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  p1 = f32[2] parameter(1)
  ROOT a = f32[2] add(p0, p1)
})");
  ASSERT_NE(m, nullptr);
  HloInstruction* p1 = Find(*m, "main", "p1");
  p1->set_parameter_number(3);
  EXPECT_TRUE(FirstViolationIs(*m, {"parameter-numbering", "p1", "main",
                                    "parameter number 3 is out of range: the computation has 2 "
                                    "parameters (numbers 0..1)"}));
  p1->set_parameter_number(0);
  EXPECT_TRUE(FirstViolationIs(*m, {"parameter-numbering", "p1", "main",
                                    "parameter number 0 is also used by p0"}));
  p1->set_parameter_number(1);
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST(StructureVerifierTest, OperandCountOfVariadicOpcodes) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2,2] parameter(0)
  ROOT d = f32[2,2] dot(a, a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"operand-count", "d", "main", "dot takes exactly 2 operands, got 3"}));
}

TEST(StructureVerifierTest, OperandCountOfReduceIsEven) {
  auto m = Parse(R"(
HloModule m
add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  a = f32[2,2] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(a, z, z), dimensions={1}, to_apply=add_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"operand-count", "r", "main",
                                    "reduce takes at least 2 (an even number of) operands, got 3"}));
}

TEST(StructureVerifierTest, OperandCountOfFixedArityOpcodes) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloComputation* main = m->GetComputationWithName("main");
  HloInstruction* add = main->AddInstruction(
      HloInstruction::Create(HloOpcode::kAdd, kF32x2, {Find(*m, "main", "p")}), "lonely_add");
  EXPECT_TRUE(FirstViolationIs(*m, {"operand-count", add->name(), "main",
                                    "add takes exactly 2 operands, got 1"}));
}

TEST(StructureVerifierTest, ConditionalOperandCountFollowsBranches) {
  auto m = Parse(R"(
HloModule m
b0 {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
b1 {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, a, a, a), branch_computations={b0, b1}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"operand-count", "c", "main",
                                    "conditional with 2 branches needs 3 operands"}));
}

TEST(StructureVerifierTest, OperandsMustBeInTheSameComputation) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloComputation* main = m->GetComputationWithName("main");
  HloInstruction* q = Find(*m, "other", "q");
  main->AddInstruction(HloInstruction::CreateUnary(kF32x2, HloOpcode::kNegate, q), "thief");
  // q (in `other`, checked first) now has a user outside its computation.
  EXPECT_TRUE(FirstViolationIs(*m, {"user-operand-symmetry", "q", "other",
                                    "has user thief, which is not in the computation"}));
  EXPECT_TRUE(HasViolation(*m, "operand-in-computation",
                           "instruction thief in computation main: operand 0 (q) belongs to "
                           "computation other, not to main"));
}

TEST(StructureVerifierTest, UsersMustBeSymmetric) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  // Created with an operand (so registered as a user of p) but never added.
  std::unique_ptr<HloInstruction> ghost =
      HloInstruction::CreateUnary(kF32x2, HloOpcode::kNegate, Find(*m, "main", "p"));
  ghost->SetAndSanitizeName("ghost");
  EXPECT_TRUE(FirstViolationIs(*m, {"user-operand-symmetry", "p", "main",
                                    "has user ghost, which is not in the computation"}));
  ghost.reset();
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST(StructureVerifierTest, ControlEdgesStayInTheComputation) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloInstruction* a = Find(*m, "main", "a");
  HloInstruction* b = Find(*m, "main", "b");
  ASSERT_TRUE(a->AddControlDependencyTo(b).ok());
  EXPECT_TRUE(VerifiesOk(*m));
  HloComputation* main = b->parent();
  b->set_parent(m->GetComputationWithName("other"));
  EXPECT_TRUE(HasViolation(*m, "control-edge",
                           "instruction a in computation main: control successor b is not in the "
                           "same computation"));
  b->set_parent(main);
}

TEST(StructureVerifierTest, CalledComputationsMustBeInTheModule) {
  auto orphan = std::make_unique<HloComputation>("orphan");
  orphan->set_root_instruction(
      orphan->AddInstruction(HloInstruction::CreateParameter(0, kF32x2, "op")));
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloInstruction* call = Find(*m, "main", "r");
  call->set_to_apply(orphan.get());
  EXPECT_TRUE(FirstViolationIs(*m, {"called-computation", "r", "main",
                                    "calls computation orphan which is not in the module"}));
  call->set_to_apply(m->GetComputationWithName("other"));
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST(StructureVerifierTest, CalledComputationCountPerOpcode) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloInstruction* call = Find(*m, "main", "r");
  HloComputation* other = m->GetComputationWithName("other");
  call->set_called_computations({other, other});
  EXPECT_TRUE(FirstViolationIs(*m, {"called-computation", "r", "main",
                                    "call calls exactly 1 computations, got 2"}));
  call->set_called_computations({other});
}

TEST(StructureVerifierTest, FusionComputationHasOneFusionCaller) {
  auto m = Parse(R"(
HloModule m
fused {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY main {
  a = f32[2] parameter(0)
  f1 = f32[2] fusion(a), kind=kLoop, calls=fused
  ROOT f2 = f32[2] fusion(f1), kind=kLoop, calls=fused
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"fusion-caller", "", "fused",
                                    "fusion computation must be called by exactly one fusion "
                                    "instruction, but is called by f1, f2"}));
}

TEST(StructureVerifierTest, FusionComputationIsNotCalledOtherwise) {
  auto m = Parse(R"(
HloModule m
fused {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY main {
  a = f32[2] parameter(0)
  f1 = f32[2] fusion(a), kind=kLoop, calls=fused
  ROOT c = f32[2] call(f1), to_apply=fused
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"fusion-caller", "", "fused", "called by f1, c"}));
}

TEST(StructureVerifierTest, CallGraphIsAcyclic) {
  auto m = Parse(R"(
HloModule m
leaf {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
a {
  p = f32[2] parameter(0)
  ROOT c = f32[2] call(p), to_apply=leaf
}
b {
  p = f32[2] parameter(0)
  ROOT c = f32[2] call(p), to_apply=a
}
ENTRY main {
  p = f32[2] parameter(0)
  ROOT c = f32[2] call(p), to_apply=b
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
  HloInstruction* call_in_a = Find(*m, "a", "c");
  call_in_a->set_to_apply(m->GetComputationWithName("b"));
  // Reported at the call that closes the cycle (b's call of a).
  EXPECT_TRUE(FirstViolationIs(*m, {"call-graph-cycle", "c", "b",
                                    "computation a calls itself through a -> b -> a"}));
  call_in_a->set_to_apply(m->GetComputationWithName("leaf"));
}

TEST(StructureVerifierTest, EntryIsNotCalled) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloInstruction* call = Find(*m, "main", "r");
  call->set_to_apply(m->entry_computation());
  // Calling the entry is reported before the (implied) call-graph cycle.
  EXPECT_TRUE(FirstViolationIs(*m, {"entry-computation", "r", "main",
                                    "entry computation main is called by r"}));
  EXPECT_TRUE(HasViolation(*m, "call-graph-cycle", "main -> main"));
  call->set_to_apply(m->GetComputationWithName("other"));
}

TEST(StructureVerifierTest, DataAndControlEdgesAreAcyclic) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloInstruction* a = Find(*m, "main", "a");
  HloInstruction* b = Find(*m, "main", "b");
  // b uses a; a control edge b -> a closes a cycle.
  ASSERT_TRUE(b->AddControlDependencyTo(a).ok());
  EXPECT_TRUE(FirstViolationIs(*m, {"cycle", "a", "main",
                                    "instruction is on a cycle of data and control edges: b -> a -> b"}));
  ASSERT_TRUE(b->RemoveControlDependencyTo(a).ok());
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST(StructureVerifierTest, ShapesMustBeValid) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  Find(*m, "main", "a")->mutable_shape()->set_dimensions(0, -3);
  EXPECT_TRUE(FirstViolationIs(*m, {"shape-valid", "a", "main", "is negative"}));
}

TEST(StructureVerifierTest, LayoutMustBeAPermutation) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  Find(*m, "main", "a")->mutable_shape()->set_layout(Layout({0, 0}));
  EXPECT_TRUE(FirstViolationIs(*m, {"shape-valid", "a", "main", "minor_to_major entries for rank 1"}));
}

TEST(StructureVerifierTest, ElementSizesOnlyPackSubByteTypes) {
  auto wide = Parse(R"(
HloModule m
ENTRY main {
  p = f32[8,10]{1,0} parameter(0)
  ROOT n = f32[8,10]{1,0:E(4)} negate(p)
})");
  ASSERT_NE(wide, nullptr);
  EXPECT_TRUE(FirstViolationIs(
      *wide, {"shape-valid", "n", "main", "gives 4-bit elements to f32 (32 bits)"}));
  auto packed = Parse(R"(
HloModule m
ENTRY main {
  p = s4[8]{0:E(4)} parameter(0)
  q = f32[4]{0:E(32)} parameter(1)
  ROOT t = (s4[8]{0:E(4)}, f32[4]{0:E(32)}) tuple(p, q)
})");
  ASSERT_NE(packed, nullptr);
  EXPECT_TRUE(VerifiesOk(*packed));
}

TEST(StructureVerifierTest, EntryComputationLayoutMatchesSignature) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  m->set_entry_computation_layout(ComputationLayout({Shape(PrimitiveType::F32, {3})}, kF32x2));
  EXPECT_TRUE(FirstViolationIs(*m, {"entry-computation-layout", "", "",
                                    "entry_computation_layout parameter 0 f32[3] does not match "
                                    "entry parameter p f32[2]"}));
  m->set_entry_computation_layout(ComputationLayout({kF32x2}, Shape(PrimitiveType::S32, {2})));
  EXPECT_TRUE(FirstViolationIs(*m, {"entry-computation-layout", "", "",
                                    "entry_computation_layout result s32[2] does not match the "
                                    "entry root shape f32[2]"}));
  m->set_entry_computation_layout(ComputationLayout({kF32x2}, kF32x2));
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST(StructureVerifierTest, ComputationParent) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  HloModule elsewhere("elsewhere");
  HloComputation* other = m->GetComputationWithName("other");
  other->set_parent(&elsewhere);
  EXPECT_TRUE(FirstViolationIs(*m, {"computation-parent", "", "other",
                                    "computation is listed in the module but its parent is another "
                                    "module"}));
  other->set_parent(m.get());
}

TEST(StructureVerifierTest, CollectsEveryViolation) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  p1 = f32[3] parameter(1)
  x = f32[2] add(p0, p1)
  y = s32[2] negate(p0)
  ROOT z = f32[4] multiply(p0, p0)
})");
  ASSERT_NE(m, nullptr);
  std::vector<HloVerifierError> errors = CollectVerifierErrors(*m);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].instruction, "x");
  EXPECT_EQ(errors[1].instruction, "y");
  EXPECT_EQ(errors[2].instruction, "z");
  for (const HloVerifierError& e : errors) {
    EXPECT_EQ(e.rule, "elementwise-shapes");
    EXPECT_EQ(e.computation, "main");
    EXPECT_EQ(e.module, "m");
  }
  EXPECT_EQ(HloVerifier().CollectErrors(*m).size(), 3u);
  EXPECT_EQ(HloVerifier().Run(*m).message(), errors[0].ToString());
}

}  // namespace
}  // namespace hmo
