// XLA's rematerialization rules: which instructions may be computed again.

#include "hmo/analysis/rematerialization_rules.h"

#include <memory>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using ::hmo::test_support::ParseTestModule;
using ::testing::HasSubstr;
using ::testing::Optional;

constexpr char kModule[] = R"(
HloModule rules

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  c = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  b = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(b), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[4] get-tuple-element(b), index=1
  ROOT t = (s32[], f32[4]) tuple(j, v)
}

ENTRY e {
  p = f32[4,8]{1,0} parameter(0)
  k = f32[] constant(2)
  neg = f32[4,8]{1,0} negate(p)
  same = f32[4,8]{1,0} copy(neg)
  relayout = f32[4,8]{0,1} copy(neg)
  cc = f32[4,8]{1,0} custom-call(p), custom_call_target="foo"
  ar = f32[4,8]{1,0} all-reduce(p), to_apply=add
  arc = f32[4,8]{1,0} all-reduce(p), to_apply=add, constrain_layout=true
  zero = s32[] constant(0)
  v = f32[4] constant({1, 2, 3, 4})
  init = (s32[], f32[4]) tuple(zero, v)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = (f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{0,1}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, (s32[], f32[4])) tuple(neg, same, relayout, cc, ar, arc, w)
}
)";

std::optional<std::string> Why(const HloModule& module, const std::string& name) {
  const HloInstruction* instruction = module.entry_computation()->GetInstructionWithName(name);
  EXPECT_NE(instruction, nullptr) << name;
  return WhyNotRematerializable(*instruction);
}

TEST(RematerializationRulesTest, XlasRules) {
  std::unique_ptr<HloModule> module = ParseTestModule(kModule);
  EXPECT_EQ(Why(*module, "neg"), std::nullopt);
  EXPECT_EQ(Why(*module, "relayout"), std::nullopt);  // a layout change is real work
  EXPECT_EQ(Why(*module, "ar"), std::nullopt);
  EXPECT_THAT(Why(*module, "p"), Optional(std::string("a parameter")));
  EXPECT_THAT(Why(*module, "k"), Optional(std::string("a constant")));
  EXPECT_THAT(Why(*module, "same"), Optional(HasSubstr("copy insertion")));
  EXPECT_THAT(Why(*module, "cc"), Optional(HasSubstr("custom call")));
  EXPECT_THAT(Why(*module, "arc"), Optional(HasSubstr("constrained layout")));
  EXPECT_THAT(Why(*module, "w"), Optional(std::string("a while loop")));
}

}  // namespace
}  // namespace hmo
