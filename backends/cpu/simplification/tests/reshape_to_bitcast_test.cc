// reshape-to-bitcast: which reshapes keep their bytes in place and become
// bitcasts, which stay, and that the values stay the same.

#include "cpu/simplification/reshape_to_bitcast.h"

#include <memory>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/verifier/hlo_verifier.h"
#include "simplification_test_support.h"
#include "support/parsed_module.h"

namespace hmo::cpu {
namespace {

using test_support::ParseTestModule;

absl::StatusOr<bool> RunPass(HloModule& module) {
  return testing::RunPassOn<ReshapeToBitcast>(module);
}

HloOpcode OpcodeOf(const HloModule& module, std::string_view name) {
  for (const HloComputation* computation : module.computations()) {
    if (const HloInstruction* found = computation->GetInstructionWithName(name)) {
      return found->opcode();
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return HloOpcode::kParameter;
}

constexpr std::string_view kModule = R"(
HloModule m, is_scheduled=true

slice_of {
  a = f32[4,2,3]{2,1,0} parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  d = f32[1,2,3]{2,1,0} dynamic-slice(a, i, z, z), dynamic_slice_sizes={1,2,3}
  ROOT s = f32[2,3]{1,0} reshape(d)
}

ENTRY e {
  a = f32[4,2,3]{2,1,0} parameter(0)
  i = s32[] parameter(1)
  row = f32[2,3]{1,0} call(a, i), to_apply=slice_of
  flat = f32[6]{0} reshape(row)
  n = f32[6]{0} negate(flat)
  col = f32[3,2]{0,1} parameter(2)
  moved = f32[6]{0} reshape(col)
  m = f32[6]{0} multiply(n, moved)
  ROOT out = f32[2,3]{1,0} reshape(m)
}
)";

TEST(ReshapeToBitcastTest, RowMajorReshapesBecomeBitcasts) {
  std::unique_ptr<HloModule> module = ParseTestModule(kModule);
  absl::StatusOr<bool> changed = RunPass(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(OpcodeOf(*module, "flat"), HloOpcode::kBitcast);
  // The root of a computation only calls run reads the slice in place too.
  EXPECT_EQ(OpcodeOf(*module, "s"), HloOpcode::kBitcast);
  // A column-major operand moves its elements; the entry's result keeps a
  // buffer of its own.
  EXPECT_EQ(OpcodeOf(*module, "moved"), HloOpcode::kReshape);
  EXPECT_EQ(OpcodeOf(*module, "out"), HloOpcode::kReshape);
  EXPECT_TRUE(module->schedule().Verify().ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
}

TEST(ReshapeToBitcastTest, ValuesStayTheSame) {
  testing::ExpectPassKeepsValues<ReshapeToBitcast>(kModule);
}

}  // namespace
}  // namespace hmo::cpu
