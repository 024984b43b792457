// Every module of every corpus file parses, and printing is stable: the
// printed text parses back to a structurally equal module and prints the
// same bytes again.

#include <string>

#include "gtest/gtest.h"
#include "hlo_test_util.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"

namespace hmo {
namespace {

using testing::ExpectStructurallyEqual;
using testing::ReadTestData;

class CorpusRoundTripTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusRoundTripTest, ParsesAndRoundTrips) {
  const std::string file = GetParam();
  const std::string text = ReadTestData("hlo/" + file);
  ASSERT_FALSE(text.empty()) << file;
  auto modules = ParseHloModules(text, file);
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_FALSE(modules->empty());
  for (const auto& module : *modules) {
    const std::string printed = PrintHloModule(*module);
    auto reparsed = ParseHloModule(printed, "printed");
    ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << printed.substr(0, 2000);
    ExpectStructurallyEqual(*module, **reparsed);
    EXPECT_EQ(printed, PrintHloModule(**reparsed)) << "printer is not a fixed point for " << file;
    // A deep clone prints identically too.
    EXPECT_EQ(printed, PrintHloModule(*module->Clone()));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, CorpusRoundTripTest,
    ::testing::Values("attention_model.hlo", "dynamic_update_slice_inplace_bf16.hlo",
                      "graphsage_tf.hlo", "hlo_llama3_8b_cp_bf16_1x4.hlo",
                      "host_offload_jit_f_while_loops.hlo", "if_conditional.hlo",
                      "ssd_mobilenet_tf.hlo", "test_hlo.txt",
                      "tpu_s4_dus_fusion_memory_spaces.hlo"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param;
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace hmo
