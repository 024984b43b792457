// Each parser error names the file, line and column of the problem and says
// what is wrong; these tests pin message and position.

#include <string>

#include "gtest/gtest.h"
#include "hlo_test_util.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

// First line of the error ("file:line:col: error: message").
std::string ErrorLine(std::string_view text) { return testing::ParseErrorLine(text); }

TEST(ParserErrorsTest, FullMessageHasSourceLineAndCaret) {
  auto m = ParseHloModule(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  ROOT a = f32[] add(p, q)
})",
                          "t.hlo");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(m.status().message()),
            "t.hlo:4:25: error: undefined operand 'q'\n"
            "  ROOT a = f32[] add(p, q)\n"
            "                        ^");
}

TEST(ParserErrorsTest, UndefinedOperand) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT n = f32[] negate(%missing)\n}"),
            "t.hlo:2:25: error: undefined operand 'missing'");
}

TEST(ParserErrorsTest, OperandShapeMismatch) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  %p = f32[2]{0} parameter(0)\n"
                      "  ROOT %n = f32[3]{0} negate(f32[3]{0} %p)\n}"),
            "t.hlo:3:30: error: operand 'p' is written with shape f32[3]{0} but is defined with "
            "shape f32[2]{0}");
}

TEST(ParserErrorsTest, DuplicateInstructionName) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n  p = f32[] negate(p)\n}"),
            "t.hlo:3:3: error: duplicate instruction name 'p' in computation 'e'");
}

TEST(ParserErrorsTest, DuplicateComputationName) {
  EXPECT_EQ(ErrorLine("c {\n  ROOT p = f32[] parameter(0)\n}\n"
                      "%c {\n  ROOT p = f32[] parameter(0)\n}"),
            "t.hlo:4:1: error: duplicate computation name 'c'");
}

TEST(ParserErrorsTest, MultipleEntry) {
  EXPECT_EQ(ErrorLine("ENTRY a {\n  ROOT p = f32[] parameter(0)\n}\n"
                      "ENTRY b {\n  ROOT p = f32[] parameter(0)\n}"),
            "t.hlo:4:1: error: multiple ENTRY computations (the first is 'a')");
}

TEST(ParserErrorsTest, NoComputationAtAll) {
  EXPECT_EQ(ErrorLine("HloModule m\n// nothing else\n"),
            "t.hlo:3:1: error: no computations: expected an ENTRY computation");
}

TEST(ParserErrorsTest, UnknownOpcode) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT x = f32[] frobnicate(p)\n}"),
            "t.hlo:3:18: error: unknown opcode 'frobnicate'");
}

TEST(ParserErrorsTest, UnknownElementType) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = f33[2] parameter(0)\n}"),
            "t.hlo:2:12: error: unknown element type 'f33'");
}

TEST(ParserErrorsTest, MalformedShape) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = f32[2,] parameter(0)\n}"),
            "t.hlo:2:18: error: expected a dimension size, got ']'");
}

TEST(ParserErrorsTest, LayoutRankMismatch) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = f32[2,3]{1,0,2} parameter(0)\n}"),
            "t.hlo:2:20: error: layout {1,0,2} has 3 dimensions but the shape has rank 2");
}

TEST(ParserErrorsTest, LayoutNotAPermutation) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = f32[2,3]{0,0} parameter(0)\n}"),
            "t.hlo:2:20: error: layout {0,0} is not a permutation of the dimensions 0..1");
}

TEST(ParserErrorsTest, UnknownLayoutAttribute) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = f32[2,3]{1,0:Q(1)} parameter(0)\n}"),
            "t.hlo:2:25: error: unknown layout attribute 'Q'");
}

TEST(ParserErrorsTest, UnknownAttribute) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n"
                      "  ROOT n = f32[] negate(p), flavour=sweet\n}"),
            "t.hlo:3:29: error: unknown attribute 'flavour'");
}

TEST(ParserErrorsTest, DuplicateAttribute) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p = (f32[]) parameter(0)\n"
                      "  ROOT g = f32[] get-tuple-element(p), index=0, index=0\n}"),
            "t.hlo:3:49: error: duplicate attribute 'index'");
}

TEST(ParserErrorsTest, MissingRequiredAttribute) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p = (f32[]) parameter(0)\n"
                      "  ROOT g = f32[] get-tuple-element(p)\n}"),
            "t.hlo:3:18: error: missing required attribute 'index' for get-tuple-element");
}

TEST(ParserErrorsTest, UndefinedComputationReference) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
                      "  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=%sum\n}"),
            "t.hlo:4:57: error: computation 'sum' is not defined");
}

TEST(ParserErrorsTest, ParameterNumberGap) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(2)\n"
                      "  ROOT s = f32[] add(a, b)\n}"),
            "t.hlo:1:7: error: computation 'e' has parameter(2) but no parameter(1); parameters "
            "must be numbered 0..n-1");
}

TEST(ParserErrorsTest, DuplicateParameterNumber) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(0)\n"
                      "  ROOT s = f32[] add(a, b)\n}"),
            "t.hlo:3:3: error: parameter number 0 of computation 'e' is used twice (also by 'a')");
}

TEST(ParserErrorsTest, UnterminatedComputation) {
  EXPECT_EQ(ErrorLine("HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n"),
            "t.hlo:3:9: error: computation 'e' is not terminated: missing '}' before end of input");
}

TEST(ParserErrorsTest, LiteralWithWrongElementCount) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = f32[3] constant({1, 2})\n}"),
            "t.hlo:2:28: error: literal has 2 elements in dimension 0 but shape f32[3] expects 3");
}

TEST(ParserErrorsTest, LiteralOutOfRange) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = s8[] constant(300)\n}"),
            "t.hlo:2:26: error: value 300 does not fit s8");
}

TEST(ParserErrorsTest, UnexpectedToken) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p f32[] parameter(0)\n}"),
            "t.hlo:2:10: error: expected '=' after the instruction name, got 'f32'");
}

TEST(ParserErrorsTest, WrongOperandCount) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT s = f32[] add(p)\n}"),
            "t.hlo:3:18: error: add takes 2 operands but has 1");
}

TEST(ParserErrorsTest, MoreThanOneRoot) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}"),
            "t.hlo:3:3: error: computation 'e' has more than one ROOT");
}

TEST(ParserErrorsTest, UnterminatedString) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = f32[] custom-call(), custom_call_target=\"oops\n}"),
            "t.hlo:2:52: error: unterminated string");
}

TEST(ParserErrorsTest, LineNumbersAreRelativeToTheWholeFile) {
  const std::string text =
      "HloModule a\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"
      "// -----\n"
      "HloModule b\nENTRY e {\n  ROOT p = f32[] nope(0)\n}\n";
  auto modules = ParseHloModules(text, "multi.hlo");
  ASSERT_FALSE(modules.ok());
  std::string msg(modules.status().message());
  EXPECT_EQ(msg.substr(0, msg.find('\n')), "multi.hlo:8:18: error: unknown opcode 'nope'");
}

TEST(ParserErrorsTest, EntryLayoutParameterCountMismatch) {
  EXPECT_EQ(ErrorLine("HloModule m, entry_computation_layout={(f32[], f32[])->f32[]}\n"
                      "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}"),
            "t.hlo:1:39: error: entry_computation_layout has 2 parameter(s) but the entry "
            "computation 'e' has 1");
}

TEST(ParserErrorsTest, FileNotFound) {
  auto m = ParseHloModuleFile("/nonexistent/file.hlo");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace hmo
