// Dots of narrow types through cpu-default and the CPU backend: a bf16 (f16)
// dot keeps its 16-bit operands and becomes the runtime's bf16 (f16) GEMM
// into f32 narrowed after, a bf16 dot into f32 and an s8 dot into s32 take
// their runtime GEMMs as they are; the results equal the evaluator's on the
// unoptimized module.

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cpu/compiler/cpu_compiler.h"
#include "cpu_execution_expectations.h"
#include "hmo/codegen/gemm_plan.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/text/hlo_parser.h"
#include "support/hmo_cli_runner.h"
#include "support/test_data.h"

namespace hmo::cpu {
namespace {

constexpr char kNarrowDots[] =
    R"(HloModule narrow_dots, entry_computation_layout={(f32[64,48]{1,0}, f32[48,32]{1,0}, s8[40,64]{1,0}, s8[64,24]{0,1})->(bf16[64,32]{1,0}, f32[48,48]{1,0}, s32[40,24]{1,0}, f16[32,64]{1,0})}

ENTRY %main (w: f32[64,48], x: f32[48,32], a: s8[40,64], b: s8[64,24]) -> (bf16[64,32], f32[48,48], s32[40,24], f16[32,64]) {
  %w = f32[64,48]{1,0} parameter(0)
  %x = f32[48,32]{1,0} parameter(1)
  %w16 = bf16[64,48]{1,0} convert(%w)
  %x16 = bf16[48,32]{1,0} convert(%x)
  %y = bf16[64,32]{1,0} dot(%w16, %x16), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %g = f32[48,48]{1,0} dot(%w16, %w16), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  %a = s8[40,64]{1,0} parameter(2)
  %b = s8[64,24]{0,1} parameter(3)
  %c = s32[40,24]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %wh = f16[64,48]{1,0} convert(%w)
  %xh = f16[48,32]{1,0} convert(%x)
  %h = f16[32,64]{1,0} dot(%xh, %wh), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  ROOT %out = (bf16[64,32]{1,0}, f32[48,48]{1,0}, s32[40,24]{1,0}, f16[32,64]{1,0}) tuple(%y, %g, %c, %h)
}
)";

TEST(NarrowDotTest, Bf16F16AndS8DotsRunOnTheirOwnGemmsAndMatchTheEvaluator) {
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("hmo_narrow_dots_" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  const std::filesystem::path input = directory / "narrow.hlo";
  const std::filesystem::path optimized = directory / "optimized.hlo";
  std::ofstream(input) << kNarrowDots;
  test_support::HmoCliRun run = test_support::RunHmoCli(
      "run " + std::string(HMO_SOURCE_DIR) + "/pipelines/cpu-default.yaml " + input.string() +
      " --check --seed 3 -o " + optimized.string());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr("check: ok (4 outputs")) << run.out << run.err;

  std::ifstream text(optimized);
  const std::string module_text((std::istreambuf_iterator<char>(text)),
                                std::istreambuf_iterator<char>());
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(module_text);
  ASSERT_TRUE(module.ok()) << module.status();
  // Each dot, alone or in an output fusion with its narrowing epilogue.
  int bf16_gemms = 0, f16_gemms = 0, s8_gemms = 0;
  for (const HloComputation* computation : (*module)->computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kDot) continue;
      EXPECT_TRUE(codegen::GemmPlanFor(*instruction).has_value()) << instruction->ToString();
      const std::optional<codegen::GemmElementTypes> types =
          codegen::RuntimeGemmElementTypes(*instruction);
      ASSERT_TRUE(types.has_value()) << instruction->ToString();
      bf16_gemms += *types == codegen::GemmElementTypes::kBf16ToF32;
      f16_gemms += *types == codegen::GemmElementTypes::kF16ToF32;
      s8_gemms += *types == codegen::GemmElementTypes::kS8ToS32;
    }
  }
  EXPECT_EQ(bf16_gemms, 2) << module_text;
  EXPECT_EQ(f16_gemms, 1) << module_text;
  EXPECT_EQ(s8_gemms, 1) << module_text;
  std::filesystem::remove_all(directory);
}

// XLA:CPU's optimized modules widen bf16 dot operands to f32 in the fusions
// producing them (here one transposes after widening, one rounds to bf16 and
// widens again, one is a plain convert). The CPU backend's preparation makes
// the dots read the bf16 values (NarrowWidenedDotOperands): every dot is the
// bf16 GEMM, and the results equal the evaluator's on the module as given.
TEST(NarrowDotTest, XlaWidenedBf16OperandsRunOnTheBf16Gemm) {
  constexpr char kWidened[] = R"(HloModule widened
fused_a {
  a = bf16[96,128]{1,0} parameter(0)
  c = f32[96,128]{1,0} convert(a)
  t = f32[128,96]{0,1} transpose(c), dimensions={1,0}
  ROOT k = f32[128,96]{1,0} copy(t)
}
fused_b {
  b = f32[96,80]{1,0} parameter(0)
  s = f32[96,80]{1,0} multiply(b, b)
  n = bf16[96,80]{1,0} convert(s)
  ROOT w = f32[96,80]{1,0} convert(n)
}
dot_fusion {
  x = f32[128,96]{1,0} parameter(0)
  y = f32[96,80]{1,0} parameter(1)
  d = f32[128,80]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT e = f32[128,80]{1,0} exponential(d)
}
ENTRY e {
  a = bf16[96,128]{1,0} parameter(0)
  b = f32[96,80]{1,0} parameter(1)
  c = bf16[80,64]{1,0} parameter(2)
  fa = f32[128,96]{1,0} fusion(a), kind=kLoop, calls=fused_a
  fb = f32[96,80]{1,0} fusion(b), kind=kLoop, calls=fused_b
  d1 = f32[128,80]{1,0} fusion(fa, fb), kind=kOutput, calls=dot_fusion
  cw = f32[80,64]{1,0} convert(c)
  d2 = f32[96,64]{1,0} dot(fb, cw), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[128,80]{1,0}, f32[96,64]{1,0}) tuple(d1, d2)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kWidened);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloModule>> prepared = CpuMemoryModel().prepare(**module);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  int bf16_gemms = 0;
  for (const HloComputation* computation : (*prepared)->computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kDot) continue;
      EXPECT_EQ(codegen::RuntimeGemmElementTypes(*instruction),
                codegen::GemmElementTypes::kBf16ToF32)
          << instruction->ToString();
      ++bf16_gemms;
    }
  }
  EXPECT_EQ(bf16_gemms, 2);
  testing::ExpectCpuMatchesTheEvaluator(**module, 7);
}

}  // namespace
}  // namespace hmo::cpu
