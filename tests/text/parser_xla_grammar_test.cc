// XLA's text grammar beyond what XLA's own printer writes, as XLA's parser
// accepts it: shapes left out (inferred), nested anonymous operands, a text
// that is a single instruction, compact tuple indices, the old `HloModule
// name:` header, scan, the all-reduce group mode, scalar reduce-window
// without window, NaN payloads; and what XLA refuses, with positions.

#include <string>

#include "gtest/gtest.h"
#include "hlo_test_util.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"

namespace hmo {
namespace {

std::string ErrorLine(std::string_view text) { return testing::ParseErrorLine(text); }

std::string Short(std::string_view text) {
  auto m = ParseHloModule(text, "t.hlo");
  if (!m.ok()) return std::string(m.status().message());
  return PrintHloModule(**m);
}

const HloInstruction* Root(const HloModule& m) { return m.entry_computation()->root_instruction(); }

TEST(ParserXlaGrammarTest, InfersShapesOfElementwiseOps) {
  auto m = ParseHloModule(R"(HloModule m
ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,3]{1,0} parameter(1)
  s = add(a, b)
  c = compare(s, b), direction=LT
  ROOT t = tuple(s, c)
})", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(Root(**m)->shape().ToString(true), "(f32[2,3]{1,0}, pred[2,3]{1,0})");
}

TEST(ParserXlaGrammarTest, InfersDotAndReduceShapes) {
  auto ok = ParseHloModule(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = add(x, y)
}
ENTRY e {
  a = f32[4,8] parameter(0)
  b = f32[8,16] parameter(1)
  d = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  ROOT r = reduce(d, z), dimensions={1}, to_apply=add
})", "t.hlo");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(Root(**ok)->shape().ToString(true), "f32[4]{0}");
  EXPECT_EQ(Root(**ok)->operand(0)->shape().ToString(true), "f32[4,16]{1,0}");
}

TEST(ParserXlaGrammarTest, NestedOperandsBecomeAnonymousInstructionsInPostOrder) {
  auto m = ParseHloModule(R"(HloModule m
ENTRY e {
  ROOT root = add(f32[10] parameter(0), multiply(f32[10] parameter(1), f32[10] parameter(2)))
})", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  std::vector<std::string> names;
  for (const HloInstruction* i : (*m)->entry_computation()->instructions()) names.push_back(i->name());
  EXPECT_EQ(names, (std::vector<std::string>{"parameter.anon", "parameter.anon.1", "parameter.anon.2",
                                             "multiply.anon", "root"}));
  EXPECT_EQ(Root(**m)->operand(1)->name(), "multiply.anon");
  // Printing names them, so the result is ordinary HLO that round-trips.
  const std::string once = PrintHloModule(**m);
  EXPECT_EQ(Short(once), once);
}

TEST(ParserXlaGrammarTest, NestedScalarBroadcastGetsEmptyDimensions) {
  const std::string out = Short(R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  ROOT r = f32[3] add(f32[3] broadcast(p), f32[3] broadcast(p))
})");
  EXPECT_NE(out.find("broadcast.anon = f32[3] broadcast(p), dimensions={}"), std::string::npos) << out;
}

TEST(ParserXlaGrammarTest, OpcodesThatNeedAShapeSaySo) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = reshape(p)\n}"),
            "t.hlo:3:12: error: cannot infer the shape of reshape: write its result shape");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = parameter(0)\n}"),
            "t.hlo:2:12: error: cannot infer the shape of parameter: write its result shape");
}

TEST(ParserXlaGrammarTest, SingleInstructionTextIsAModule) {
  auto m = ParseHloModule("%multiply = f32[2,4]{1,0} multiply(f32[2,4]{1,0} %broadcast, f32[2,4]{1,0} %x)",
                          "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloComputation* entry = (*m)->entry_computation();
  ASSERT_EQ(entry->num_parameters(), 2);
  EXPECT_EQ(entry->parameter_instruction(0)->name(), "broadcast");
  EXPECT_EQ(entry->parameter_instruction(1)->name(), "x");
  EXPECT_EQ(Root(**m)->name(), "multiply");
  EXPECT_TRUE((*m)->has_schedule());
  // Bare operand shapes become parameters _0, _1.
  auto bare = ParseHloModule("f32[2,4]{1,0} multiply(f32[2,4]{1,0}, f32[2,4]{1,0})", "t.hlo");
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_EQ((*bare)->entry_computation()->parameter_instruction(1)->name(), "_1");
  EXPECT_EQ(ErrorLine("%m = f32[2] multiply(%a, %b)"),
            "t.hlo:1:22: error: operand 'a' has no shape: a single-instruction text needs the shapes of "
            "its operands to make parameters");
}

TEST(ParserXlaGrammarTest, CompactTupleIndices) {
  auto m = ParseHloModule(R"(HloModule m
ENTRY e {
  p0 = (f32[10], (f16[10], s32[])) parameter(0)
  ROOT t = tuple(p0#0, p0#1#0, p0#1#0)
})", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction* t = Root(**m);
  EXPECT_EQ(t->operand(0)->name(), "p0_0");
  EXPECT_EQ(t->operand(1)->name(), "p0_1_0");
  EXPECT_EQ(t->operand(1), t->operand(2));  // one get-tuple-element per path
  EXPECT_EQ(t->operand(1)->operand(0)->name(), "p0_1");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p0 = (f32[10]) parameter(0)\n  ROOT g = f32[10] negate(p0#3)\n}"),
            "t.hlo:3:30: error: 'p0#3': index out of range for (f32[10])");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  p0 = f32[10] parameter(0)\n  ROOT g = f32[10] negate(p0#0)\n}"),
            "t.hlo:3:30: error: 'p0#0': p0 is not a tuple (f32[10])");
}

TEST(ParserXlaGrammarTest, OldHeaderWithColon) {
  auto m = ParseHloModule("HloModule old_style:\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->name(), "old_style");
}

TEST(ParserXlaGrammarTest, ScanInfersOutputsAndCarries) {
  auto m = ParseHloModule(R"(HloModule m
body {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  s = f32[] add(x, c)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
ENTRY e {
  input = f32[4] parameter(0)
  init = f32[] parameter(1)
  ROOT scan = scan(input, init), dimensions={0}, num_carries=1, is_reverse=true, is_associative=true, to_apply=body
})", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(Root(**m)->shape().ToString(false), "(f32[4], f32[])");
  EXPECT_NE(PrintHloModule(**m).find("scan(input, init), dimensions={0}, num_carries=1, is_reverse=true, "
                                     "is_associative=true, to_apply=body"),
            std::string::npos);
}

TEST(ParserXlaGrammarTest, AllReduceModeIsCheckedAndDropped) {
  const std::string text = R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[8] parameter(0)
  ROOT r = f32[8] all-reduce(p), replica_groups={}, mode=cross_replica, to_apply=add
})";
  const std::string out = Short(text);
  EXPECT_EQ(out.find("mode="), std::string::npos) << out;
  std::string bad = text;
  bad.replace(bad.find("cross_replica"), 13, "everywhere");
  EXPECT_EQ(ErrorLine(bad).substr(0, 52), "t.hlo:9:58: error: invalid collective op group mode ");
}

TEST(ParserXlaGrammarTest, ScalarReduceWindowNeedsNoWindow) {
  auto m = ParseHloModule(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  c = f32[] constant(1)
  z = f32[] constant(0)
  ROOT r = f32[] reduce-window(c, z), to_apply=add
})", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(ErrorLine(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  c = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce-window(c, z), to_apply=add
})"),
            "t.hlo:10:19: error: missing required attribute 'window' for reduce-window");
}

TEST(ParserXlaGrammarTest, NanPayloadsRoundTrip) {
  const std::string out = Short(
      "ENTRY e {\n  ROOT c = f32[4] constant({nan, -nan, nan(0x1), -nan(0x7fffff)})\n}\n");
  EXPECT_NE(out.find("constant({nan, -nan, nan(0x1), -nan(0x7fffff)})"), std::string::npos) << out;
  EXPECT_NE(Short("ENTRY e {\n  ROOT c = bf16[2] constant({-nan(0x7f), -nan(0x3f)})\n}\n")
                .find("{-nan(0x7f), -nan(0x3f)}"),
            std::string::npos);
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = bf16[1] constant({nan(0x3ff)})\n}"),
            "t.hlo:2:34: error: NaN payload 0x3ff does not fit the mantissa of bf16 (it must be non-zero and "
            "fit the mantissa bits)");
}

TEST(ParserXlaGrammarTest, U64TakesNegativeValuesWrapped) {
  const std::string out = Short("ENTRY e {\n  ROOT c = u64[] constant(-1)\n}\n");
  EXPECT_NE(out.find("constant(18446744073709551615)"), std::string::npos) << out;
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = u32[] constant(4294967296)\n}"),
            "t.hlo:2:27: error: value 4294967296 does not fit u32");
}

TEST(ParserXlaGrammarTest, FloatConstantsOutOfRange) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = f16[] constant(-65520)\n}"),
            "t.hlo:2:27: error: value -65520 is out of range for f16 (it would become -inf)");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = bf16[] constant(1e100)\n}"),
            "t.hlo:2:28: error: value 1e100 is out of range for bf16 (it would become inf)");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = f64[] constant(1e400)\n}"),
            "t.hlo:2:27: error: value 1e400 is out of range for f64 (it would become inf)");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = c64[] constant((1e39, 0))\n}"),
            "t.hlo:2:28: error: value 1e39 is out of range for f32 (it would become inf)");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = bf16[] constant(-65505)\n}"), "<parsed>");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = f32[] constant(3.4028235e38)\n}"), "<parsed>");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = f32[] constant(-3.5e38)\n}"),
            "t.hlo:2:27: error: value -3.5e38 is out of range for f32 (it would become -inf)");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT c = f16[2] constant({inf, -inf})\n}"), "<parsed>");
}

TEST(ParserXlaGrammarTest, ConditionalBranchIndexMustBeScalarPredOrS32) {
  const std::string branches = R"(HloModule m
b0 {
  ROOT p = f32[] parameter(0)
}
b1 {
  ROOT p = f32[] parameter(0)
}
ENTRY e {
  i = INDEX parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x, x), FORM
})";
  auto with = [&](std::string index, std::string form) {
    std::string t = branches;
    t.replace(t.find("INDEX"), 5, index);
    t.replace(t.find("FORM"), 4, form);
    return ErrorLine(t);
  };
  EXPECT_EQ(with("s32[]", "branch_computations={b0, b1}"), "<parsed>");
  EXPECT_EQ(with("pred[]", "true_computation=b0, false_computation=b1"), "<parsed>");
  EXPECT_EQ(with("f32[]", "branch_computations={b0, b1}"),
            "t.hlo:11:18: error: the branch index of a conditional must be a scalar pred or s32, got f32[]");
  EXPECT_EQ(with("s32[2]", "branch_computations={b0, b1}"),
            "t.hlo:11:18: error: the branch index of a conditional must be a scalar pred or s32, got s32[2]");
  EXPECT_EQ(with("pred[]", "branch_computations={b0, b1}"),
            "t.hlo:11:60: error: a conditional on a pred takes true_computation and false_computation, not "
            "branch_computations");
}

TEST(ParserXlaGrammarTest, CustomCallApiVersionAndLayoutConstraints) {
  auto call = [](std::string attrs) {
    return ErrorLine("ENTRY e {\n  p = f32[2,3]{1,0} parameter(0)\n  ROOT c = f32[2]{0} custom-call(p), "
                     "custom_call_target=\"foo\", " + attrs + "\n}");
  };
  EXPECT_EQ(call("api_version=API_VERSION_TYPED_FFI"), "<parsed>");
  EXPECT_EQ(call("api_version=API_VERSION_UNSPECIFIED"),
            "t.hlo:3:76: error: invalid API version API_VERSION_UNSPECIFIED: a custom call needs a specific "
            "api_version");
  EXPECT_EQ(call("api_version=API_VERSION_THAT_DOESNT_EXIST").substr(0, 44),
            "t.hlo:3:76: error: unknown API version 'API_");
  EXPECT_EQ(call("operand_layout_constraints={f32[2,3]{0,1}}"), "<parsed>");
  EXPECT_EQ(call("operand_layout_constraints={f32[2,3]{0,1}, f32[2]{0}}"),
            "t.hlo:3:91: error: expected 1 operand layout constraints (one per operand), 2 given");
  EXPECT_EQ(call("operand_layout_constraints={f32[3,2]{0,1}}"),
            "t.hlo:3:91: error: operand layout constraint 0 (f32[3,2]{0,1}) is not compatible with operand "
            "shape f32[2,3]{1,0}");
}

TEST(ParserXlaGrammarTest, ResultAccuracyIsChecked) {
  auto op = [](std::string opcode, std::string value) {
    return ErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] " + opcode + "(p), result_accuracy=" +
                     value + "\n}");
  };
  EXPECT_EQ(op("exponential", "{mode=highest}"), "<parsed>");
  EXPECT_EQ(op("exponential", "{tolerance={atol=0.5,rtol=0.5,ulps=1}}"), "<parsed>");
  EXPECT_EQ(op("exponential", "{mode=high}").substr(0, 78),
            "t.hlo:3:50: error: result_accuracy mode expects a ResultAccuracy type (default");
  EXPECT_EQ(op("exponential", "{0.5}"),
            "t.hlo:3:50: error: result_accuracy expects an attribute name (mode= or tolerance=)");
  EXPECT_EQ(op("bitcast-convert", "{mode=highest}"),
            "t.hlo:3:54: error: unexpected attribute result_accuracy on bitcast-convert: only transcendental "
            "unary ops take it");
}

TEST(ParserXlaGrammarTest, RecvMustBeATupleWithAToken) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  t = token[] after-all()\n  ROOT r = f32[10] recv(t), channel_id=1\n}"),
            "t.hlo:3:20: error: recv must have shape (data, u32[], token[]), got f32[10]");
}

TEST(ParserXlaGrammarTest, LayoutDimLevelTypesAndPhysicalShape) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = f32[2,2]{1,0:D(X,C)} parameter(0)\n}"),
            "t.hlo:2:27: error: expected a DimLevelType abbreviation (D, C, S or H, optionally with + or ~), "
            "got 'X'");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = f32[2,2]{1,0:D(D,C)} parameter(0)\n}"), "<parsed>");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = f32[10,10]{1,0:T(128,8)P(f32[10,10])} parameter(0)\n}"),
            "t.hlo:2:22: error: layout has a physical shape P(...) but is not for a sparse array (D(...) "
            "needs a compressed, singleton or loose level)");
}

TEST(ParserXlaGrammarTest, NestingBeyondTheLimitIsRefused) {
  std::string shape;
  for (int i = 0; i < 600; ++i) shape += "(";
  shape += "f32[]";
  for (int i = 0; i < 600; ++i) shape += ")";
  const std::string error = ErrorLine("ENTRY e {\n  ROOT p = " + shape + " parameter(0)\n}");
  EXPECT_NE(error.find("error: maximum nesting depth (500) exceeded"), std::string::npos) << error;
  std::string deep = "p";
  for (int i = 0; i < 600; ++i) deep = "negate(" + deep + ")";
  const std::string nested = ErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] " + deep + "\n}");
  EXPECT_NE(nested.find("error: maximum nesting depth (500) exceeded"), std::string::npos) << nested;
}

TEST(ParserXlaGrammarTest, CommentsEndAtEveryLineEnding) {
  for (std::string eol : {"\n", "\r\n", "\r"}) {
    const std::string text = "HloModule m // header comment" + eol + "/* block" + eol + "comment */" + eol +
                             "ENTRY e { // entry" + eol + "  ROOT p = f32[] parameter(0) // root" + eol + "}" + eol;
    EXPECT_EQ(ErrorLine(text), "<parsed>") << static_cast<int>(eol.back());
  }
  // Positions count \r\n and a lone \r as one line break.
  EXPECT_EQ(ErrorLine("ENTRY e {\r  ROOT p = f32[] nope(0)\r}"), "t.hlo:2:18: error: unknown opcode 'nope'");
}

TEST(ParserXlaGrammarTest, EmptyFileIsRefused) {
  auto modules = ParseHloModules("  // only a comment\n", "empty.hlo");
  ASSERT_FALSE(modules.ok());
  EXPECT_EQ(std::string(modules.status().message()).substr(0, 39), "empty.hlo:1:1: error: the file holds no");
}

TEST(ParserXlaGrammarTest, CompositeCallAttributesDictionary) {
  const std::string out = Short(R"(HloModule m
add {
  x = f32[] parameter(0)
  ROOT z = f32[] add(x, x)
}
ENTRY e {
  c = f32[] constant(42)
  ROOT call = f32[] call(c), to_apply=add, is_composite=true, frontend_attributes={composite.name="foo.bar",composite.attributes={n = 1 : i32, tensor = dense<1> : tensor<i32>},composite.version="1"}
})");
  // Sorted by key as XLA prints them; the dictionary stays unquoted.
  EXPECT_NE(out.find("frontend_attributes={composite.attributes={n = 1 : i32, tensor = dense<1> : "
                     "tensor<i32>},composite.name=\"foo.bar\",composite.version=\"1\"}"),
            std::string::npos)
      << out;
}

TEST(ParserXlaGrammarTest, SignatureMustMatchTheRoot) {
  EXPECT_EQ(ErrorLine("HloModule m\n\nENTRY %e (p: f32[1,2,3]) -> f32[1] {\n  ROOT %p = f32[1,2,3] parameter(0)\n}\n"),
            "t.hlo:3:7: error: the signature of 'e' returns f32[1], which is not compatible with its root "
            "instruction p, f32[1,2,3]");
}

TEST(ParserXlaGrammarTest, ParameterReplicationCountsLeaves) {
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = (f32[], f32[2]) parameter(0), parameter_replication={true,false,true}\n}"),
            "t.hlo:2:64: error: parameter has 2 leaf buffers, but parameter_replication has 3 elements");
  EXPECT_EQ(ErrorLine("ENTRY e {\n  ROOT p = (f32[], f32[2]) parameter(0), parameter_replication={true,false}\n}"),
            "<parsed>");
}

TEST(ParserXlaGrammarTest, InlineComputationBodies) {
  auto m = ParseHloModule(R"(HloModule m
ENTRY e {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT c = f32[] call(p0, p1), to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }
})", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction* call = Root(**m);
  ASSERT_EQ(call->called_computations().size(), 1u);
  EXPECT_EQ(call->called_computations()[0]->name(), "to_apply.anon");
  EXPECT_EQ(call->called_computations()[0]->root_instruction()->opcode(), HloOpcode::kAdd);
  // The enclosing computation's names are in scope again after the body.
  EXPECT_EQ(call->operand(1)->name(), "p1");
}

TEST(ParserXlaGrammarTest, LateBoundAsyncOperandsJoinTheWrappedComputation) {
  auto m = ParseHloModule(R"(HloModule m
ENTRY e {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  s = ((), (), s32[]) call-start(), to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT r = f32[] add(a, b)
  }
  u = ((f32[], f32[]), f32[], s32[]) call-update(s, p0, p1)
  ROOT d = f32[] call-done(u)
})", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction* done = Root(**m);
  ASSERT_EQ(done->called_computations().size(), 1u);
  const HloComputation* wrapped = done->called_computations()[0];
  EXPECT_EQ(wrapped->num_parameters(), 2);  // bound by the update
  EXPECT_EQ(wrapped->root_instruction()->opcode(), HloOpcode::kCall);
  EXPECT_EQ(wrapped->root_instruction()->shape().ToString(false), "f32[]");
  EXPECT_EQ(done->operand(0)->operand_count(), 3);
}

TEST(ParserXlaGrammarTest, UnknownDimLabelsOnCustomCalls) {
  const std::string out = Short(
      "ENTRY e {\n  a = f32[1,2,3,4] parameter(0)\n  b = f32[2,2,1,1] parameter(1)\n"
      "  ROOT c = f32[1,2,3,4] custom-call(a, b), window={size=1x1}, dim_labels=?b01f_0?1io->b01?f, "
      "custom_call_target=\"x\"\n}\n");
  EXPECT_NE(out.find("dim_labels=?b01f_0?1io->b01?f"), std::string::npos) << out;
}

TEST(ParserXlaGrammarTest, MeshReplicaGroupsNameMeshAxes) {
  auto all_reduce = [](std::string groups) {
    return ErrorLine("HloModule m\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                     "  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  p = f32[8] parameter(0)\n"
                     "  ROOT r = f32[8] all-reduce(p), replica_groups=" + groups + ", to_apply=add\n}");
  };
  EXPECT_EQ(all_reduce("mesh['axis_0'=2,'axis_1'=2] {'axis_1'}"), "<parsed>");
  EXPECT_EQ(all_reduce("mesh['axis_0'=2,'axis_1'=2] {'1'}"), "<parsed>");
  EXPECT_EQ(all_reduce("mesh['axis_0'=2,'axis_1'=2] {'bogus'}"),
            "t.hlo:9:49: error: 'bogus' is not a valid axis name or index of the mesh");
  EXPECT_EQ(all_reduce("mesh['axis_0'=2,'axis_1'=2] {'5'}"),
            "t.hlo:9:49: error: mesh axis index 5 is out of bounds for mesh of 2 axes");
  EXPECT_EQ(all_reduce("mesh['axis_0'=2,'axis_1'=2, device_ids=(0,1,2)] {'axis_0'}"),
            "t.hlo:9:49: error: mesh device_ids lists 3 devices but the mesh has 4 positions");
}

TEST(ParserXlaGrammarTest, AsyncChainsMustAgree) {
  const std::string base = R"(HloModule m
wrapped {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
other {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
ENTRY e {
  x = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped
  ROOT d = f32[4] DONE
})";
  auto with = [&](std::string done) {
    std::string t = base;
    t.replace(t.find("DONE"), 4, done);
    return ErrorLine(t);
  };
  EXPECT_EQ(with("async-done(s)"), "<parsed>");
  EXPECT_EQ(with("negate-done(s)"), "<parsed>");
  EXPECT_EQ(with("async-done(s), calls=other"),
            "t.hlo:13:19: error: expected the async wrapped computation to be wrapped (that of s), but got "
            "other");
  EXPECT_EQ(with("async-done(s), async_execution_thread=\"foo_thread\""),
            "t.hlo:13:19: error: expected async_execution_thread to be main (that of s), but got foo_thread");
  EXPECT_EQ(with("add-done(s)"),
            "t.hlo:13:19: error: expected the async wrapped opcode to be negate, but got add");
  EXPECT_EQ(with("async-done(x)"),
            "t.hlo:13:19: error: async-done expects an asynchronous operation (async-start or async-update) "
            "as its first operand");
  std::string twice = base;
  twice.replace(twice.find("  ROOT d = f32[4] DONE"), std::string("  ROOT d = f32[4] DONE").size(),
                "  s2 = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped\n  d2 = f32[4] async-done(s2)\n"
                "  ROOT d = f32[4] async-done(s)");
  EXPECT_EQ(ErrorLine(twice),
            "t.hlo:2:1: error: computation wrapped is called by more than one async op (s and s2)");
}

}  // namespace
}  // namespace hmo
