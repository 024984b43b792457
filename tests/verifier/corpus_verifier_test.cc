// Every module of the HLO corpus (tests/hlo, copied from openxla/xla) is
// accepted by XLA's verifier in layout-insensitive mode, so it must verify
// here with the default options.

#include <gtest/gtest.h>

#include <cctype>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
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

TEST_P(CorpusVerifierTest, VerifiesWithStrictElementTypes) {
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

// Layout-sensitive mode. attention_model.hlo is layout-inconsistent across
// while loops (body roots use plain layouts, the while uses TPU tiled ones),
// and so is hlo_llama3_8b_cp_bf16_1x4.hlo (the while carries
// f32[32,4096]{0,1} where the body's parameter and root use {1,0}): XLA only
// accepts them in layout-insensitive mode, and so does hmo. Every other
// corpus module is layout-consistent.
TEST_P(CorpusVerifierTest, LayoutSensitiveVerdict) {
  const bool inconsistent =
      GetParam() == "attention_model.hlo" || GetParam() == "hlo_llama3_8b_cp_bf16_1x4.hlo";
  HloVerifierOptions options;
  options.layout_sensitive = true;
  for (const auto& module : ParseCorpusFile(GetParam())) {
    SCOPED_TRACE(module->name());
    if (!inconsistent) {
      EXPECT_TRUE(testing::VerifiesOk(*module, options));
      continue;
    }
    absl::Status status = VerifyHloModule(*module, options);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(std::string(status.message()).find("(rule: layout)"), std::string::npos)
        << status.message();
    for (const HloVerifierError& e : CollectVerifierErrors(*module, options)) {
      EXPECT_EQ(e.rule, "layout") << e.ToString();
      EXPECT_NE(e.message.find("while body"), std::string::npos) << e.ToString();
    }
  }
}

// Opcodes whose result shape is free (or only loosely constrained) given the
// operands: perturbing their shape need not be an error.
bool ShapeIsFree(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kIota:
    case HloOpcode::kBitcast:
    case HloOpcode::kCustomCall:
    case HloOpcode::kInfeed:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kAsyncStart:
      return true;
    default:
      return false;
  }
}

// An incompatible change: a different (non-floating-point-compatible)
// element type on the first array leaf, or, for opcodes whose element type
// is free (convert, dot, convolution), one more dimension.
bool Perturb(Shape* shape, HloOpcode op) {
  Shape* leaf = shape;
  while (leaf->IsTuple()) {
    if (leaf->tuple_shapes_size() == 0) return false;
    leaf = leaf->mutable_tuple_shapes(0);
  }
  if (!leaf->IsArray()) return false;
  if (op == HloOpcode::kConvert || op == HloOpcode::kDot || op == HloOpcode::kConvolution ||
      op == HloOpcode::kBitcastConvert) {
    leaf->add_dimensions(7);
    if (leaf->has_layout()) leaf->clear_layout();
    return true;
  }
  leaf->set_element_type(leaf->element_type() == PrimitiveType::S8 ? PrimitiveType::PRED
                                                                     : PrimitiveType::S8);
  return true;
}

// Mutation test: the verifier really checks the corpus. For a sample of
// instructions with constrained shapes, an incompatible shape is reported as
// the first violation, naming that instruction.
TEST_P(CorpusVerifierTest, DetectsPerturbedShapes) {
  std::vector<std::unique_ptr<HloModule>> modules = ParseCorpusFile(GetParam());
  for (const auto& module : modules) {
    std::vector<HloInstruction*> candidates;
    for (HloComputation* c : module->computations()) {
      for (HloInstruction* i : c->instructions()) {
        if (!ShapeIsFree(i->opcode())) candidates.push_back(i);
      }
    }
    size_t stride = std::max<size_t>(1, candidates.size() / 100);
    int checked = 0;
    for (size_t k = 0; k < candidates.size(); k += stride) {
      HloInstruction* instr = candidates[k];
      Shape original = instr->shape();
      if (!Perturb(instr->mutable_shape(), instr->opcode())) continue;
      absl::Status status = VerifyHloModule(*module);
      std::string scope = "instruction " + instr->name() + " in computation " +
                          instr->parent()->name() + ": ";
      EXPECT_FALSE(status.ok()) << module->name() << ": " << instr->ToString();
      if (!status.ok()) {
        EXPECT_EQ(std::string(status.message()).rfind(scope, 0), 0u)
            << module->name() << ": " << instr->ToString() << "\n  -> " << status.message();
      }
      *instr->mutable_shape() = original;
      ++checked;
    }
    EXPECT_GT(checked, 0) << module->name();
    EXPECT_TRUE(testing::VerifiesOk(*module));
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

TEST(CorpusFilesTest, DynamicUpdateSliceFileHasFiveModules) {
  EXPECT_EQ(ParseCorpusFile("dynamic_update_slice_inplace_bf16.hlo").size(), 5u);
}

// The scheduled corpus modules carry schedules the verifier checks.
TEST(CorpusFilesTest, ScheduledModulesHaveSchedules) {
  for (const char* name :
       {"dynamic_update_slice_inplace_bf16.hlo", "tpu_s4_dus_fusion_memory_spaces.hlo"}) {
    for (const auto& module : ParseCorpusFile(name)) {
      EXPECT_TRUE(module->has_schedule()) << module->name();
    }
  }
}

}  // namespace
}  // namespace hmo
