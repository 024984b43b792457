// input_output_alias and buffer_donor against the entry signature.

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/alias_verifier.h"
#include "hmo/verifier/hlo_verifier.h"
#include "verifier_test_util.h"

namespace hmo {
namespace {

using testing::FirstViolationIs;
using testing::Parse;
using testing::VerifiesOk;

constexpr char kAliased[] = R"(
HloModule a, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[2] parameter(1)
  p2 = (f32[4], s32[]) parameter(2)
  n = f32[4] negate(p0)
  m = f32[2] negate(p1)
  ROOT t = (f32[4], f32[2]) tuple(n, m)
})";

class AliasVerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = Parse(kAliased);
    ASSERT_NE(module_, nullptr);
    ASSERT_EQ(module_->input_output_alias_config().size(), 1);
  }
  HloInputOutputAliasConfig& aliases() { return module_->input_output_alias_config(); }
  std::unique_ptr<HloModule> module_;
};

TEST_F(AliasVerifierTest, ParsedConfigVerifies) {
  EXPECT_TRUE(VerifiesOk(*module_));
  EXPECT_TRUE(VerifyModuleAliasing(*module_).ok());
}

TEST_F(AliasVerifierTest, BadParameterNumber) {
  ASSERT_TRUE(aliases().SetUpAlias({1}, 7, {}).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"alias-parameter", "", "",
                                          "entry computation main has no parameter 7 (it has 3)"}));
}

TEST_F(AliasVerifierTest, BadParameterIndex) {
  ASSERT_TRUE(aliases().SetUpAlias({1}, 1, {0}).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"alias-parameter", "", "",
                                          "parameter index {0} is not in parameter 1 of shape f32[2]"}));
}

TEST_F(AliasVerifierTest, BadOutputIndex) {
  ASSERT_TRUE(aliases().SetUpAlias({5}, 1, {}).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"alias-output-index", "", "",
                                          "output index {5} is not in the entry result shape "
                                          "(f32[4], f32[2])"}));
}

TEST_F(AliasVerifierTest, SizeMismatch) {
  // Output {1} is f32[2] (8 bytes); parameter 2 element {0} is f32[4] (16).
  ASSERT_TRUE(aliases().SetUpAlias({1}, 2, {0}).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"alias-size", "", "", "bytes) differ in size"}));
  EXPECT_EQ(VerifyHloModule(*module_).message(),
            "module a: input_output_alias entry {1}: (2, {0}, may-alias): output f32[2] (8 bytes) "
            "and parameter f32[4] (16 bytes) differ in size (rule: alias-size)");
}

TEST_F(AliasVerifierTest, AliasedShapesAreArrays) {
  ASSERT_TRUE(aliases().SetUpAlias({1}, 2, {}).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"alias-shape", "", "", "aliased shapes must be arrays"}));
}

TEST(AliasVerifierMemorySpaceTest, MemorySpacesMustAgree) {
  auto m = Parse(R"(
HloModule a, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY main {
  p0 = f32[4]{0:S(1)} parameter(0)
  ROOT n = f32[4]{0} negate(p0)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"alias-memory-space", "", "",
                                    "output f32[4]{0} is in memory space 0 but parameter "
                                    "f32[4]{0:S(1)} is in memory space 1"}));
}

TEST(AliasVerifierMemorySpaceTest, SameSizeDifferentShapeIsFine) {
  // dynamic_update_slice_inplace_bf16.hlo aliases bf16[11,10,12] with
  // bf16[10,11,12]: only byte sizes must agree.
  auto m = Parse(R"(
HloModule a, input_output_alias={ {}: (0, {}) }
ENTRY main {
  p0 = bf16[10,11,12] parameter(0)
  ROOT b = bf16[11,10,12] bitcast(p0)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST_F(AliasVerifierTest, BufferDonorMustExist) {
  ASSERT_TRUE(module_->buffer_donor_config().AddBufferDonor(9, {}).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"buffer-donor", "", "",
                                          "buffer_donor (9, {}): entry computation main has no "
                                          "parameter 9"}));
}

TEST_F(AliasVerifierTest, BufferDonorIndexMustExist) {
  ASSERT_TRUE(module_->buffer_donor_config().AddBufferDonor(2, {3}).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"buffer-donor", "", "",
                                          "buffer_donor (2, {3}): index is not in parameter 2"}));
}

TEST_F(AliasVerifierTest, BufferDonorIsNotAlsoAliased) {
  ASSERT_TRUE(module_->buffer_donor_config().AddBufferDonor(1, {}).ok());
  EXPECT_TRUE(VerifiesOk(*module_));
  ASSERT_TRUE(module_->buffer_donor_config().AddBufferDonor(0, {}).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"buffer-donor-aliased", "", "",
                                          "buffer_donor (0, {}): the parameter buffer is also in "
                                          "input_output_alias"}));
}

TEST(AliasVerifierTextTest, BufferDonorFromText) {
  auto m = Parse(R"(
HloModule a, input_output_alias={ {}: (0, {}, may-alias) }, buffer_donor={ (0, {}) }
ENTRY main {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"buffer-donor-aliased", "", "", "also in input_output_alias"}));
}

// a = negate(p0) and b = exp(p1), with output 0 in parameter `first`'s
// buffer and output 1 in parameter `second`'s.
std::string DonatingModule(int first, int second) {
  return absl::StrCat("HloModule d, input_output_alias={ {0}: (", first,
                      ", {}, must-alias), {1}: (", second, R"(, {}, must-alias) }
ENTRY main {
  p0 = f32[64] parameter(0)
  p1 = f32[64] parameter(1)
  a = f32[64] negate(p0)
  b = f32[64] exponential(p1)
  ROOT t = (f32[64], f32[64]) tuple(a, b)
})");
}

TEST(AliasVerifierTextTest, OutputsDonatedCrosswiseFormACycle) {
  // a overwrites p1 while b still has to read it, and b overwrites p0 while
  // a still has to read it: no order satisfies both.
  auto crosswise = Parse(DonatingModule(1, 0));
  ASSERT_NE(crosswise, nullptr);
  EXPECT_TRUE(
      FirstViolationIs(*crosswise, {"alias-cycle", "", "",
                                    "input_output_alias {0}: (1, {}, must-alias) and {1}: (0, {}, "
                                    "must-alias): each donated parameter must be read before"}));
  // Each output in its own parameter's buffer is an in-place update.
  auto straight = Parse(DonatingModule(0, 1));
  ASSERT_NE(straight, nullptr);
  EXPECT_TRUE(VerifiesOk(*straight));
}

// A module-level error points at the header attribute it is about, or at the
// module's name when the header does not write that attribute.
TEST(AliasVerifierTextTest, ModuleErrorsArePositionedAtTheHeaderAttribute) {
  auto crosswise = Parse(DonatingModule(1, 0));
  ASSERT_NE(crosswise, nullptr);
  std::vector<HloVerifierError> errors = CollectVerifierErrors(*crosswise, {});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 1);
  EXPECT_EQ(errors[0].column, 14);  // "HloModule d, input_output_alias=..."

  auto donor = Parse(R"(HloModule b,
  buffer_donor={ (3, {}) }
ENTRY main {
  ROOT p0 = f32[4] parameter(0)
})");
  ASSERT_NE(donor, nullptr);
  errors = CollectVerifierErrors(*donor, {});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rule, "buffer-donor");
  EXPECT_EQ(errors[0].line, 2);
  EXPECT_EQ(errors[0].column, 3);

  // Aliases a pass added, in a module whose header had none: the name.
  auto added = Parse(R"(HloModule added
ENTRY main {
  p0 = f32[4] parameter(0)
  ROOT n = f32[2] negate(f32[2] constant({1, 2}))
})");
  ASSERT_NE(added, nullptr);
  ASSERT_TRUE(added->input_output_alias_config()
                  .SetUpAlias({}, 0, {}, HloInputOutputAliasConfig::kMayAlias)
                  .ok());
  errors = CollectVerifierErrors(*added, {});
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].rule, "alias-size");
  EXPECT_EQ(errors[0].line, 1);
  EXPECT_EQ(errors[0].column, 11);
}

TEST(AliasVerifierTextTest, AReaderThatNeedsTheDonatedOutputImposesNoOrder) {
  // s reads p0 after n has been computed into p0's buffer: valid HLO (the
  // backends keep a copy of p0), not a donation cycle.
  auto m = Parse(R"(
HloModule r, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY main {
  p0 = f32[64] parameter(0)
  n = f32[64] negate(p0)
  s = f32[64] add(p0, n)
  ROOT t = (f32[64], f32[64]) tuple(n, s)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
}

TEST_F(AliasVerifierTest, AliasCheckCanBeTurnedOff) {
  ASSERT_TRUE(aliases().SetUpAlias({1}, 7, {}).ok());
  HloVerifierOptions options;
  options.verify_alias_config = false;
  EXPECT_TRUE(VerifiesOk(*module_, options));
}

}  // namespace
}  // namespace hmo
