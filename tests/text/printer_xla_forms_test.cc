// XLA's long form (HloPrintOptions::LongForm(), what HloModule::ToString()
// writes): spellings that differ from hmo's short form. Each test parses a
// small module and compares the long form with XLA's text byte for byte;
// where the input is already XLA's text, printing it is a fixed point.

#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "hmo/ir/literal.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"

namespace hmo {
namespace {

std::string Print(std::string_view text, const HloPrintOptions& options) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? PrintHloModule(**m, options) : "";
}

std::string Long(std::string_view text) { return Print(text, HloPrintOptions::LongForm()); }
std::string Short(std::string_view text) { return Print(text, HloPrintOptions::Canonical()); }

// A one-constant module in XLA's long form.
std::string ConstantModule(std::string_view shape, std::string_view layout, std::string_view value) {
  std::string s(shape);
  return "HloModule m, entry_computation_layout={()->" + s + std::string(layout) + "}\n\nENTRY %e () -> " + s +
         " {\n  ROOT %c = " + s + std::string(layout) + " constant(" + std::string(value) + ")\n}\n\n";
}

TEST(PrinterXlaFormsTest, HighRankLiteralsCarryIndexComments) {
  // Rank 4: every level but the outermost and the rows is labelled with
  // its index in the dimension above; one-element rows are "{x}".
  const std::string r4 = ConstantModule("f32[2,2,1,1]", "{3,2,1,0}",
                                        "{ { /*i0=0*/ { /*i1=0*/ {1} }, { /*i1=1*/ {2.5} } }, "
                                        "{ /*i0=1*/ { /*i1=0*/ {-3} }, { /*i1=1*/ {4} } } }");
  EXPECT_EQ(Long(r4), r4);
  // The same value written without comments prints the same.
  EXPECT_EQ(Long(ConstantModule("f32[2,2,1,1]", "{3,2,1,0}", "{ { { { 1 } }, { { 2.5 } } }, { { { -3 } }, { { 4 } } } }")),
            r4);
  // Rows of several elements keep their inner spaces.
  const std::string rows = ConstantModule("s32[1,2,1,2]", "{3,2,1,0}",
                                          "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } }, { /*i1=1*/ { 3, 4 } } } }");
  EXPECT_EQ(Long(rows), rows);
  // Rank 5 labels three levels.
  const std::string r5 = ConstantModule("s32[1,1,2,1,1]", "{4,3,2,1,0}",
                                        "{ { /*i0=0*/ { /*i1=0*/ { /*i2=0*/ {7} }, { /*i2=1*/ {8} } } } }");
  EXPECT_EQ(Long(r5), r5);
  // An empty dimension: the label and nothing else.
  const std::string empty = ConstantModule("f32[2,0,3,2]", "{3,2,1,0}", "{ { /*i0=0*/ }, { /*i0=1*/ } }");
  EXPECT_EQ(Long(empty), empty);
  // Ranks 2 and 3 have no labels; one-element rows are still "{x}".
  const std::string r2 = ConstantModule("f32[3,1]", "{1,0}", "{ {1}, {2}, {3} }");
  EXPECT_EQ(Long(ConstantModule("f32[3,1]", "{1,0}", "{ { 1 }, { 2 }, { 3 } }")), r2);
  const std::string r3 = ConstantModule("s32[2,1,2]", "{2,1,0}", "{ { { 1, 2 } }, { { 3, 4 } } }");
  EXPECT_EQ(Long(r3), r3);
  const std::string r3_single = ConstantModule("s32[1,2,1]", "{2,1,0}", "{ { {5}, {6} } }");
  EXPECT_EQ(Long(r3_single), r3_single);
  // Rank 1 has no inner spaces.
  const std::string r1 = ConstantModule("s32[3]", "{0}", "{1, 2, 3}");
  EXPECT_EQ(Long(r1), r1);
}

TEST(PrinterXlaFormsTest, PredArraysPrintAsDigits) {
  const std::string r2 = ConstantModule("pred[2,3]", "{1,0}", "{ { 0, 1, 0 }, { 1, 1, 0 } }");
  EXPECT_EQ(Long(ConstantModule("pred[2,3]", "{1,0}", "{ { false, true, false }, { true, true, false } }")), r2);
  EXPECT_EQ(Long(r2), r2);
  const std::string r1 = ConstantModule("pred[3]", "{0}", "{1, 0, 1}");
  EXPECT_EQ(Long(ConstantModule("pred[3]", "{0}", "{true, false, true}")), r1);
  // Scalars stay words.
  const std::string scalar = ConstantModule("pred[]", "", "false");
  EXPECT_EQ(Long(scalar), scalar);
  // hmo's short form keeps true/false.
  EXPECT_NE(Short(r2).find("constant({ { false, true, false }, { true, true, false } })"), std::string::npos);
}

TEST(PrinterXlaFormsTest, TupleLiteralsArePadded) {
  const std::string text =
      "HloModule m, entry_computation_layout={()->(s32[2,1]{1,0}, f32[2]{0}, pred[])}\n\n"
      "ENTRY %e () -> (s32[2,1], f32[2], pred[]) {\n"
      "  ROOT %c = (s32[2,1]{1,0}, f32[2]{0}, pred[]) constant(( { {3}, {4} }, {0.5, 8}, true ))\n"
      "}\n\n";
  EXPECT_EQ(Long(text), text);
  EXPECT_NE(Short(text).find("constant(({ { 3 }, { 4 } }, {0.5, 8}, true))"), std::string::npos);
}

TEST(PrinterXlaFormsTest, Float8NanKeepsItsSign) {
  // f8e4m3fn has a NaN of either sign.
  const std::string fn = ConstantModule("f8e4m3fn[3]", "{0}", "{-nan, 2, nan}");
  EXPECT_EQ(Long(fn), fn);
  // The fnuz types' single NaN is the sign-bit pattern: it reads as -nan
  // whichever sign the text gave.
  const std::string fnuz = ConstantModule("f8e4m3b11fnuz[2]", "{0}", "{-nan, 3}");
  EXPECT_EQ(Long(fnuz), fnuz);
  EXPECT_EQ(Long(ConstantModule("f8e4m3b11fnuz[2]", "{0}", "{nan, 3}")), fnuz);
  const std::string fnuz2 = ConstantModule("f8e5m2fnuz[1]", "{0}", "{-nan}");
  EXPECT_EQ(Long(fnuz2), fnuz2);
  // IEEE-style types keep the sign and their payloads.
  const std::string ieee = ConstantModule("f8e5m2[3]", "{0}", "{-nan, nan, -inf}");
  EXPECT_EQ(Long(ieee), ieee);
  const std::string payload = ConstantModule("f32[2]", "{0}", "{-nan(0x1), nan(0x7fff)}");
  EXPECT_EQ(Long(payload), payload);
  // The literal API agrees.
  Literal l(Shape(PrimitiveType::F8E4M3FN, {2}));
  l.SetFromDouble(0, -std::numeric_limits<double>::quiet_NaN());
  l.SetFromDouble(1, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(l.ToStringWithoutShape(), "{-nan, nan}");
}

TEST(PrinterXlaFormsTest, SliceStridesOnEveryDimension) {
  const std::string strided =
      "HloModule m, entry_computation_layout={(f32[4,8,3]{2,1,0})->f32[2,8,3]{2,1,0}}\n\n"
      "ENTRY %e (p: f32[4,8,3]) -> f32[2,8,3] {\n"
      "  %p = f32[4,8,3]{2,1,0} parameter(0)\n"
      "  ROOT %s = f32[2,8,3]{2,1,0} slice(f32[4,8,3]{2,1,0} %p), slice={[0:4:2], [0:8:1], [0:3:1]}\n"
      "}\n\n";
  EXPECT_EQ(Long(strided), strided);
  // hmo's short form leaves out the strides of 1.
  EXPECT_NE(Short(strided).find("slice={[0:4:2], [0:8], [0:3]}"), std::string::npos);
  // No stride other than 1: none printed.
  const std::string unit =
      "HloModule m, entry_computation_layout={(f32[4,8]{1,0})->f32[2,8]{1,0}}\n\n"
      "ENTRY %e (p: f32[4,8]) -> f32[2,8] {\n"
      "  %p = f32[4,8]{1,0} parameter(0)\n"
      "  ROOT %s = f32[2,8]{1,0} slice(f32[4,8]{1,0} %p), slice={[1:3], [0:8]}\n"
      "}\n\n";
  EXPECT_EQ(Long(unit), unit);
}

TEST(PrinterXlaFormsTest, CustomCallAndTopKAttributeOrder) {
  const std::string conv =
      "HloModule m, entry_computation_layout={(f32[1,4,2]{2,1,0}, f32[3,2,2]{2,1,0})->f32[1,2,2]{2,1,0}}\n\n"
      "ENTRY %e (a: f32[1,4,2], b: f32[3,2,2]) -> f32[1,2,2] {\n"
      "  %a = f32[1,4,2]{2,1,0} parameter(0)\n"
      "  %b = f32[3,2,2]{2,1,0} parameter(1)\n"
      "  ROOT %cc = f32[1,2,2]{2,1,0} custom-call(f32[1,4,2]{2,1,0} %a, f32[3,2,2]{2,1,0} %b), "
      "window={size=3}, dim_labels=b0f_0io->b0f, feature_group_count=1, operand_precision={high,default}, "
      "custom_call_target=\"my_conv\", api_version=API_VERSION_STATUS_RETURNING\n"
      "}\n\n";
  // feature_group_count=1 is not printed back.
  std::string expected = conv;
  expected.erase(expected.find("feature_group_count=1, "), std::string("feature_group_count=1, ").size());
  EXPECT_EQ(Long(conv), expected);
  const std::string grouped =
      "HloModule m, entry_computation_layout={()->f32[1,2,2,4]{3,2,1,0}}\n\n"
      "ENTRY %e () -> f32[1,2,2,4] {\n"
      "  ROOT %cc = f32[1,2,2,4]{3,2,1,0} custom-call(), window={size=2x2}, dim_labels=b01f_01io->b01f, "
      "feature_group_count=2, custom_call_target=\"t\"\n"
      "}\n\n";
  EXPECT_EQ(Long(grouped), grouped);

  const std::string topk =
      "HloModule m, entry_computation_layout={(f32[6]{0})->(f32[2]{0}, s32[2]{0})}\n\n"
      "ENTRY %e (x: f32[6]) -> (f32[2], s32[2]) {\n"
      "  %x = f32[6]{0} parameter(0)\n"
      "  ROOT %t = (f32[2]{0}, s32[2]{0}) topk(f32[6]{0} %x), k=2, largest=false, is_stable=true\n"
      "}\n\n";
  EXPECT_EQ(Long(topk), topk);
}

TEST(PrinterXlaFormsTest, DebugAttributesStartTheirOwnLine) {
  const std::string text =
      "HloModule m, entry_computation_layout={()->s32[2]{0}},\n"
      "debug_attributes={\n"
      "  {\"c\"}:({log_mode=default,callback_id=7})\n"
      "}\n\n"
      "ENTRY %e () -> s32[2] {\n"
      "  ROOT %c = s32[2]{0} constant({4, 5}), origin={{\"c\"}}\n"
      "}\n\n";
  EXPECT_EQ(Long(text), text);
}

TEST(PrinterXlaFormsTest, OriginRecoveryTableIsFollowedByTwoBlankLines) {
  const std::string text =
      "HloModule m, entry_computation_layout={()->s32[2]{0}}, origin_recovery_table={\n"
      "  {\"c\"} : {\"c__ovp0\"},\n"
      "  \"\n"
      "    HloModule r, entry_computation_layout={(s32[2]{0})->s32[2]{0}}\n\n"
      "    ENTRY %r (p: s32[2]) -> s32[2] {\n"
      "      ROOT %p = s32[2]{0} parameter(0)\n"
      "    }\n\n\n"
      "  \"\n"
      "}\n\n\n"
      "ENTRY %e () -> s32[2] {\n"
      "  ROOT %c = s32[2]{0} constant({4, 5}), origin={{\"c__ovp0\"}}\n"
      "}\n\n";
  EXPECT_EQ(Long(text), text);
}

TEST(PrinterXlaFormsTest, ShortFormKeepsItsLiteralText) {
  const std::string text = ConstantModule("f32[2,1,1,1]", "{3,2,1,0}", "{ { { { 1 } } }, { { { 2 } } } }");
  EXPECT_NE(Short(text).find("constant({ { { { 1 } } }, { { { 2 } } } })"), std::string::npos);
  Literal l(Shape(PrimitiveType::PRED, {2, 1}));
  l.SetFromInt64(0, 1);
  EXPECT_EQ(l.ToStringWithoutShape(), "{ { true }, { false } }");
  EXPECT_EQ(l.ToStringWithoutShape(LiteralTextStyle::kXla), "{ {1}, {0} }");
}

TEST(PrinterXlaFormsTest, TrivialAsyncOpsPrintWithSyntaxSugar) {
  // XLA leaves out the wrapped computation of `<op>-start` and writes the
  // start's attributes before the wrapped op's.
  const std::string text =
      "HloModule m, entry_computation_layout={(f32[10]{0})->f32[20]{0}}\n\n"
      "ENTRY %e (p0: f32[10]) -> f32[20] {\n"
      "  %p0 = f32[10]{0} parameter(0)\n"
      "  %s = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-start(f32[10]{0} %p0), "
      "async_execution_thread=\"parallel_thread\", custom_call_target=\"foo\"\n"
      "  %u = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-update(((f32[10]{0}), f32[20]{0}, s32[]) %s)\n"
      "  ROOT %d = f32[20]{0} custom-call-done(((f32[10]{0}), f32[20]{0}, s32[]) %u)\n"
      "}\n\n";
  EXPECT_EQ(Long(text), text);
  // hmo's short form spells the async ops out.
  EXPECT_NE(Short(text).find("async-start(p0), calls=wrapped_custom-call_computation, "
                             "async_execution_thread=\"parallel_thread\""),
            std::string::npos)
      << Short(text);
}

TEST(PrinterXlaFormsTest, NonTrivialAsyncDoneNamesNoComputation) {
  const std::string text =
      "HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n\n"
      "%w (a: f32[4]) -> f32[4] {\n"
      "  %a = f32[4]{0} parameter(0)\n"
      "  %n = f32[4]{0} negate(f32[4]{0} %a)\n"
      "  ROOT %x = f32[4]{0} exponential(f32[4]{0} %n)\n"
      "}\n\n"
      "ENTRY %e (p: f32[4]) -> f32[4] {\n"
      "  %p = f32[4]{0} parameter(0)\n"
      "  %s = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(f32[4]{0} %p), calls=%w\n"
      "  ROOT %d = f32[4]{0} async-done(((f32[4]{0}), f32[4]{0}, s32[]) %s)\n"
      "}\n\n";
  EXPECT_EQ(Long(text), text);
}

}  // namespace
}  // namespace hmo
