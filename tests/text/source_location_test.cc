// The parser records where each instruction was written (its name's line and
// column), and verifier errors carry that place, so diagnostics can point
// into the file.

#include <gtest/gtest.h>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"

namespace hmo {
namespace {

constexpr char kText[] =
    "HloModule m\n"
    "\n"
    "ENTRY e {\n"
    "  %p = (f32[], f32[]) parameter(0)\n"
    "  g0 = f32[] get-tuple-element(%p), index=0\r\n"
    "    ROOT %g = f32[] get-tuple-element(%p), index=9\n"
    "}\n";

TEST(SourceLocation, EveryParsedInstructionKnowsItsLineAndColumn) {
  auto module = ParseHloModule(kText, "t.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* entry = (*module)->entry_computation();
  auto where = [&](const char* name) {
    for (const HloInstruction* instruction : entry->instructions()) {
      if (instruction->name() == name) return instruction->source_location();
    }
    return HloInstruction::SourceLocation{};
  };
  EXPECT_EQ(where("p").line, 4);
  EXPECT_EQ(where("p").column, 3);
  EXPECT_EQ(where("g0").line, 5);
  EXPECT_EQ(where("g0").column, 3);
  // After a \r\n line end, and behind ROOT.
  EXPECT_EQ(where("g").line, 6);
  EXPECT_EQ(where("g").column, 10);
  // An instruction a pass makes has no place.
  EXPECT_FALSE(HloInstruction::SourceLocation{}.known());
}

TEST(SourceLocation, VerifierErrorsCarryTheInstructionsPlace) {
  auto module = ParseHloModule(kText, "t.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<HloVerifierError> errors = CollectVerifierErrors(**module, {});
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front().instruction, "g");
  EXPECT_EQ(errors.front().line, 6);
  EXPECT_EQ(errors.front().column, 10);
}

}  // namespace
}  // namespace hmo
