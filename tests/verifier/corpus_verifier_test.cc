// Every module of the HLO corpus (tests/hlo, copied from openxla/xla) is
// accepted by XLA's verifier in layout-insensitive mode, so it must verify
// here with the default options.

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "verifier_test_util.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

std::string CorpusDir() {
  fs::path dir = fs::path(HMO_TEST_DATA_DIR) / "hlo";
  if (fs::exists(dir / "attention_model.hlo")) return dir.string();
  return "/work/shared/hlo";  // before the copies land in tests/hlo
}

std::vector<std::string> CorpusFiles() {
  return {"attention_model.hlo",
          "dynamic_update_slice_inplace_bf16.hlo",
          "graphsage_tf.hlo",
          "hlo_llama3_8b_cp_bf16_1x4.hlo",
          "host_offload_jit_f_while_loops.hlo",
          "if_conditional.hlo",
          "ssd_mobilenet_tf.hlo",
          "test_hlo.txt",
          "tpu_s4_dus_fusion_memory_spaces.hlo"};
}

std::vector<std::unique_ptr<HloModule>> ParseCorpusFile(const std::string& name) {
  absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> modules =
      ParseHloModulesFile((fs::path(CorpusDir()) / name).string());
  if (!modules.ok()) {
    ADD_FAILURE() << name << ": " << modules.status().message();
    return {};
  }
  return std::move(modules).value();
}

class CorpusVerifierTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusVerifierTest, VerifiesLayoutInsensitive) {
  std::vector<std::unique_ptr<HloModule>> modules = ParseCorpusFile(GetParam());
  ASSERT_FALSE(modules.empty());
  for (const auto& module : modules) {
    SCOPED_TRACE(module->name());
    EXPECT_TRUE(testing::VerifiesOk(*module));
    EXPECT_TRUE(VerifyHloModule(*module).ok());
    EXPECT_TRUE(HloVerifier().Run(*module).ok());
  }
}

TEST_P(CorpusVerifierTest, VerifiesWithoutMixedPrecisionExceptKnownFiles) {
  // The corpus mixes precisions only through convert and dot/convolution
  // preferred types, so strict element types accept it too.
  std::vector<std::unique_ptr<HloModule>> modules = ParseCorpusFile(GetParam());
  HloVerifierOptions options;
  options.allow_mixed_precision = false;
  for (const auto& module : modules) {
    SCOPED_TRACE(module->name());
    EXPECT_TRUE(testing::VerifiesOk(*module, options));
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusVerifierTest, ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(CorpusVerifierTest, DynamicUpdateSliceFileHasFiveModules) {
  EXPECT_EQ(ParseCorpusFile("dynamic_update_slice_inplace_bf16.hlo").size(), 5u);
}

// attention_model.hlo is layout-inconsistent across while loops (body roots
// use plain layouts, the while uses TPU tiled ones): XLA only accepts it in
// layout-insensitive mode, and so does hmo.
TEST(CorpusVerifierTest, AttentionModelIsRejectedWhenLayoutSensitive) {
  std::vector<std::unique_ptr<HloModule>> modules = ParseCorpusFile("attention_model.hlo");
  ASSERT_EQ(modules.size(), 1u);
  HloVerifierOptions options;
  options.layout_sensitive = true;
  absl::Status status = VerifyHloModule(*modules[0], options);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("(rule: layout)"), std::string::npos)
      << status.message();
  EXPECT_TRUE(testing::HasViolation(*modules[0], "layout", "while body", options));
}

// The scheduled corpus modules carry schedules the verifier checks.
TEST(CorpusVerifierTest, ScheduledModulesHaveSchedules) {
  for (const char* name :
       {"dynamic_update_slice_inplace_bf16.hlo", "tpu_s4_dus_fusion_memory_spaces.hlo"}) {
    for (const auto& module : ParseCorpusFile(name)) {
      EXPECT_TRUE(module->has_schedule()) << module->name();
    }
  }
}

}  // namespace
}  // namespace hmo
