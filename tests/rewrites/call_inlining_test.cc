// InlineCalls: calls replaced by their callees' instructions, nested calls
// too, the caller's schedule keeping the callee's order where the call was;
// calls that carry attributes stay.

#include "hmo/rewrites/call_inlining.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hmo/eval/hlo_evaluator.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/literal.h"
#include "hmo/verifier/hlo_verifier.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using test_support::ParseTestModule;

int CountOpcode(const HloModule& module, HloOpcode opcode) {
  int count = 0;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      count += instruction->opcode() == opcode;
    }
  }
  return count;
}

constexpr char kNestedCalls[] = R"(
HloModule nested, is_scheduled=true

inner {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}

outer {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  c = f32[4] call(x), to_apply=inner
  ROOT s = f32[4] add(c, y)
}

ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  m = f32[4] multiply(p, q)
  r = f32[4] call(m, q), to_apply=outer
  ROOT t = f32[4] exponential(r)
}
)";

TEST(CallInliningTest, InlinesNestedCallsInScheduleOrder) {
  std::unique_ptr<HloModule> module = ParseTestModule(kNestedCalls);
  std::unique_ptr<HloModule> reference = module->Clone();
  absl::StatusOr<bool> changed = InlineCalls(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kCall), 0);
  // The callees went with their last call.
  EXPECT_EQ(module->computation_count(), 1);
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  ASSERT_TRUE(module->schedule().Verify().ok());
  // The entry's sequence: m, then the callees' instructions, then t.
  std::vector<std::string> names;
  for (const HloInstruction* instruction :
       module->schedule().sequence(module->entry_computation()).instructions()) {
    names.push_back(std::string(HloOpcodeString(instruction->opcode())));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"parameter", "parameter", "multiply", "negate", "add",
                                             "exponential"}));

  // Same values.
  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3, 4}));
  arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {0.5, -1, 0, 2}));
  HloEvaluator evaluator;
  absl::StatusOr<Literal> expected = evaluator.Evaluate(*reference, arguments);
  absl::StatusOr<Literal> actual = evaluator.Evaluate(*module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(expected->ToString(), actual->ToString());
}

TEST(CallInliningTest, ElementsOfTheInlinedRootTupleAreReadDirectly) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule pair

cell {
  h = f32[4] parameter(0)
  c = f32[4] parameter(1)
  n = f32[4] tanh(c)
  ROOT r = (f32[4], f32[4]) tuple(n, h)
}

ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  k = (f32[4], f32[4]) call(p, q), to_apply=cell
  a = f32[4] get-tuple-element(k), index=0
  b = f32[4] get-tuple-element(k), index=1
  ROOT s = f32[4] add(a, b)
}
)");
  absl::StatusOr<bool> changed = InlineCalls(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  // No tuple or get-tuple-element between the inlined values and their use.
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kTuple), 0);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kGetTupleElement), 0);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kTanh);
  EXPECT_EQ(root->operand(1)->name(), "p");
  EXPECT_TRUE(VerifyHloModule(*module).ok());
}

TEST(CallInliningTest, CallsWithAttributesStay) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule host_compute

on_host {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}

ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] call(p), to_apply=on_host, frontend_attributes={_xla_compute_type="host"}
}
)");
  absl::StatusOr<bool> changed = InlineCalls(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kCall), 1);
}

}  // namespace
}  // namespace hmo
