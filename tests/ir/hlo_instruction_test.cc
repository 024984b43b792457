#include "hmo/ir/hlo_instruction.h"

#include "gtest/gtest.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

const Shape kF32x4(PrimitiveType::F32, {4});

class HloInstructionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = std::make_unique<HloModule>("m");
    auto comp = std::make_unique<HloComputation>("entry");
    p0_ = comp->AddInstruction(HloInstruction::CreateParameter(0, kF32x4, "p0"));
    p1_ = comp->AddInstruction(HloInstruction::CreateParameter(1, kF32x4, "p1"));
    add_ = comp->AddInstruction(HloInstruction::CreateBinary(kF32x4, HloOpcode::kAdd, p0_, p1_));
    neg_ = comp->AddInstruction(HloInstruction::CreateUnary(kF32x4, HloOpcode::kNegate, add_));
    comp->set_root_instruction(neg_);
    entry_ = module_->AddEntryComputation(std::move(comp));
  }
  std::unique_ptr<HloModule> module_;
  HloComputation* entry_;
  HloInstruction *p0_, *p1_, *add_, *neg_;
};

TEST_F(HloInstructionTest, EdgesAndNames) {
  EXPECT_EQ(add_->name(), "add");
  EXPECT_EQ(neg_->name(), "negate");
  EXPECT_EQ(add_->operand_count(), 2);
  EXPECT_EQ(add_->operand(1), p1_);
  EXPECT_EQ(p0_->users(), std::vector<HloInstruction*>({add_}));
  EXPECT_TRUE(add_->IsUserOf(p0_));
  EXPECT_TRUE(neg_->IsRoot());
  EXPECT_FALSE(add_->IsRoot());
  EXPECT_EQ(add_->parent(), entry_);
  EXPECT_EQ(add_->GetModule(), module_.get());
  EXPECT_GE(add_->unique_id(), 0);
  EXPECT_NE(add_->unique_id(), neg_->unique_id());
  EXPECT_TRUE(add_->IsElementwise());
  EXPECT_TRUE(add_->IsElementwiseOnOperand(1));
  EXPECT_EQ(add_->ToString(), "add = f32[4] add(p0, p1)");
  // Names are uniquified within the module.
  HloInstruction* add2 = entry_->AddInstruction(
      HloInstruction::CreateBinary(kF32x4, HloOpcode::kAdd, p0_, p0_));
  EXPECT_EQ(add2->name(), "add.1");
  EXPECT_EQ(p0_->users().size(), 2u);
  EXPECT_EQ(add2->unique_operands().size(), 1u);
  EXPECT_EQ(add2->OperandIndices(p0_), std::vector<int64_t>({0, 1}));
}

TEST_F(HloInstructionTest, ReplaceOperandAndUses) {
  HloInstruction* mul = entry_->AddInstruction(
      HloInstruction::CreateBinary(kF32x4, HloOpcode::kMultiply, p0_, p0_));
  ASSERT_TRUE(add_->ReplaceOperandWith(1, mul).ok());
  EXPECT_EQ(add_->operand(1), mul);
  EXPECT_TRUE(p1_->users().empty());
  EXPECT_EQ(mul->users(), std::vector<HloInstruction*>({add_}));
  // Incompatible shape is rejected by the checked variant.
  HloInstruction* scalar = entry_->AddInstruction(
      HloInstruction::CreateConstant(Literal::CreateR0FromDouble(PrimitiveType::F32, 1)));
  EXPECT_FALSE(add_->ReplaceOperandWith(0, scalar).ok());
  EXPECT_TRUE(add_->ReplaceOperandWithDifferentShape(0, scalar).ok());
  ASSERT_TRUE(add_->ReplaceOperandWithDifferentShape(0, p0_).ok());
  // RAUW moves users and the root.
  HloInstruction* copy = entry_->AddInstruction(HloInstruction::CreateCopy(kF32x4, neg_));
  ASSERT_TRUE(neg_->ReplaceAllUsesWith(copy).ok());
  EXPECT_EQ(entry_->root_instruction(), copy);
  EXPECT_EQ(copy->operand(0), neg_);  // the copy still reads neg (no cycle)
  EXPECT_EQ(neg_->users(), std::vector<HloInstruction*>({copy}));
  EXPECT_FALSE(add_->ReplaceUseWith(p1_, mul).ok());  // p1 is not a user of add
}

TEST_F(HloInstructionTest, ControlDependencies) {
  ASSERT_TRUE(p1_->AddControlDependencyTo(p0_).ok());
  ASSERT_TRUE(p1_->AddControlDependencyTo(p0_).ok());  // idempotent
  EXPECT_EQ(p1_->control_successors().size(), 1u);
  EXPECT_EQ(p0_->control_predecessors(), std::vector<HloInstruction*>({p1_}));
  EXPECT_FALSE(p1_->AddControlDependencyTo(p1_).ok());
  EXPECT_NE(p0_->ToString().find("control-predecessors={p1}"), std::string::npos);
  ASSERT_TRUE(p1_->RemoveControlDependencyTo(p0_).ok());
  EXPECT_FALSE(p1_->RemoveControlDependencyTo(p0_).ok());
  ASSERT_TRUE(add_->AddControlDependencyTo(neg_).ok());
  ASSERT_TRUE(neg_->DropAllControlDeps().ok());
  EXPECT_TRUE(add_->control_successors().empty());
}

TEST_F(HloInstructionTest, CloneKeepsAttributes) {
  auto gte_src = HloInstruction::CreateTuple({p0_, p1_});
  HloInstruction* tuple = entry_->AddInstruction(std::move(gte_src));
  HloInstruction* gte = entry_->AddInstruction(HloInstruction::CreateGetTupleElement(tuple, 1));
  EXPECT_EQ(gte->shape(), kF32x4);
  EXPECT_EQ(gte->tuple_index(), 1);
  gte->SetRawAttribute("metadata", "{op_name=\"x\"}");
  gte->mutable_frontend_attributes()->Set("_xla_buffer_placement", "pinned_host");
  auto clone = gte->CloneWithNewOperands(gte->shape(), {tuple});
  EXPECT_EQ(clone->tuple_index(), 1);
  EXPECT_EQ(clone->metadata_text(), "{op_name=\"x\"}");
  EXPECT_EQ(clone->metadata_op_name(), "x");
  EXPECT_EQ(clone->frontend_attributes().Get("_xla_buffer_placement").value_or(""), "pinned_host");
  EXPECT_EQ(tuple->users().size(), 2u);  // the unattached clone is a user too
  clone.reset();                          // ... until destroyed
  EXPECT_EQ(tuple->users().size(), 1u);
  auto named = gte->Clone();
  EXPECT_EQ(named->name(), gte->name() + ".clone");
}

TEST(HloInstructionOpcodeTest, OpcodeNames) {
  EXPECT_EQ(HloOpcodeString(HloOpcode::kGetTupleElement), "get-tuple-element");
  EXPECT_EQ(StringToHloOpcode("dynamic-update-slice"), HloOpcode::kDynamicUpdateSlice);
  EXPECT_EQ(StringToHloOpcode("clz"), HloOpcode::kClz);
  EXPECT_FALSE(StringToHloOpcode("frobnicate").has_value());
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    HloOpcode op = static_cast<HloOpcode>(i);
    EXPECT_EQ(StringToHloOpcode(HloOpcodeString(op)), op);
  }
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kAdd), 2);
  EXPECT_FALSE(HloOpcodeArity(HloOpcode::kTuple).has_value());
  EXPECT_TRUE(IsElementwiseOpcode(HloOpcode::kSelect));
  EXPECT_FALSE(IsElementwiseOpcode(HloOpcode::kBroadcast));
}

TEST(HloInstructionFusionTest, ElementwiseFusionAndSideEffects) {
  auto m = ParseHloModule(R"(HloModule f
fused {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  n = f32[4] negate(a)
  bc = f32[4] broadcast(c), dimensions={}
  c = f32[] constant(1)
  ROOT m = f32[4] multiply(n, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT f = f32[4] fusion(x, y), kind=kLoop, calls=fused
})");
  // bc uses c before its definition: rejected.
  EXPECT_FALSE(m.ok());
  m = ParseHloModule(R"(HloModule f
fused {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  n = f32[4] negate(a)
  ROOT m = f32[4] multiply(n, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT f = f32[4] fusion(x, y), kind=kLoop, calls=fused
})");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction* f = (*m)->entry_computation()->root_instruction();
  EXPECT_TRUE(f->IsElementwise());
  EXPECT_TRUE(f->IsElementwiseOnOperand(0));
  EXPECT_EQ(f->fused_expression_root()->name(), "m");
  EXPECT_EQ(f->fused_parameter(1)->name(), "b");
  EXPECT_FALSE(f->HasSideEffect());
  EXPECT_TRUE(f->fused_instructions_computation()->IsFusionComputation());
  EXPECT_EQ(f->fused_instructions_computation()->FusionInstruction(), f);
}

}  // namespace
}  // namespace hmo
