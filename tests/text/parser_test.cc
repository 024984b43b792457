// Features of the text format: what is accepted and how it prints back.

#include <string>

#include "gtest/gtest.h"
#include "hlo_test_util.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using test_support::ParseTestModule;

using testing::ExpectStructurallyEqual;

// Parses, checks the round trip, returns the printed text.
std::string RoundTrip(std::string_view text) {
  auto m = ParseTestModule(text);
  if (!m) return "";
  std::string printed = PrintHloModule(*m);
  auto again = ParseHloModule(printed);
  EXPECT_TRUE(again.ok()) << again.status() << "\n" << printed;
  if (again.ok()) {
    ExpectStructurallyEqual(*m, **again);
    EXPECT_EQ(printed, PrintHloModule(**again));
  }
  return printed;
}

TEST(ParserTest, ShortFormWithoutHeaderEntryOrRoot) {
  auto m = ParseTestModule(R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  add = f32[] add(x, y)
}
main {
  p = f32[8] parameter(0)
  zero = f32[] constant(0)
  sum = f32[] reduce(p, zero), dimensions={0}, to_apply=add
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "main");
  EXPECT_EQ(m->entry_computation()->name(), "main");
  EXPECT_EQ(m->entry_computation()->root_instruction()->name(), "sum");
  EXPECT_EQ(m->entry_computation()->root_instruction()->to_apply()->name(), "add");
  EXPECT_FALSE(m->has_explicit_entry_computation_layout());
  EXPECT_EQ(m->entry_computation_layout().ToString(), "(f32[8])->f32[]");
  EXPECT_EQ(PrintHloModule(*m),
            "HloModule main\n"
            "\n"
            "add {\n"
            "  x = f32[] parameter(0)\n"
            "  y = f32[] parameter(1)\n"
            "  ROOT add = f32[] add(x, y)\n"
            "}\n"
            "\n"
            "ENTRY main {\n"
            "  p = f32[8] parameter(0)\n"
            "  zero = f32[] constant(0)\n"
            "  ROOT sum = f32[] reduce(p, zero), dimensions={0}, to_apply=add\n"
            "}\n");
}

TEST(ParserTest, LongFormWithSignaturesTypedOperandsAndComments) {
  auto m = ParseTestModule(R"(/* leading */ HloModule long_form // the header
%body.1 (p.1: (s32[], f32[4])) -> (s32[], f32[4]) {
  %p.1 = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element((s32[], f32[4]{0}) %p.1), index=0
  %one = s32[] constant(1)
  %next = s32[] add(s32[] %i, s32[] %one)
  %v = f32[4]{0} get-tuple-element(%p.1), index=1
  ROOT %t = (s32[], f32[4]{0}) tuple(%next, /*index=1*/%v)
}
%cond.1 (p.2: (s32[], f32[4])) -> pred[] {
  %p.2 = (s32[], f32[4]{0}) parameter(0)
  %i.2 = s32[] get-tuple-element(%p.2), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%i.2, %n), direction=LT, type=SIGNED
}
ENTRY %main.1 (a: f32[4]) -> (s32[], f32[4]) {
  %a = f32[4]{0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[4]{0}) tuple(%zero, %a)
  ROOT %w = (s32[], f32[4]{0}) while(%init), condition=%cond.1, body=%body.1
})");
  ASSERT_NE(m, nullptr);
  const HloInstruction* w = m->entry_computation()->root_instruction();
  EXPECT_EQ(w->while_condition()->name(), "cond.1");
  EXPECT_EQ(w->while_body()->name(), "body.1");
  EXPECT_EQ(w->called_computations()[0]->name(), "body.1");
  const HloInstruction* lt = w->while_condition()->root_instruction();
  EXPECT_EQ(lt->comparison_direction(), ComparisonDirection::kLt);
  EXPECT_EQ(lt->comparison_type(), ComparisonType::kSigned);
  RoundTrip(PrintHloModule(*m));
  // The long form prints back with % names, operand shapes and signatures.
  std::string long_form = PrintHloModule(*m, HloPrintOptions::LongForm());
  EXPECT_NE(long_form.find("ENTRY %main.1 (a: f32[4]) -> (s32[], f32[4]) {"), std::string::npos)
      << long_form;
  EXPECT_NE(long_form.find("%next = s32[] add(s32[] %i, s32[] %one)"), std::string::npos);
  auto reparsed = ParseHloModule(long_form);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  ExpectStructurallyEqual(*m, **reparsed);
}

TEST(ParserTest, LayoutExtrasPrintBack) {
  // A physical shape needs a sparse level (XLA refuses P(...) on dense arrays).
  const std::string layout =
      "{1,0:D(D,C)T(8,128)(2,*)L(4)#(s32)*(s64)E(4)S(5)SC(0:1,2)SC(1:3)P(s4[8,128]{1,0})M(16)}";
  auto parsed = ParseLayout(layout);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->ToString(), layout);
  EXPECT_EQ(parsed->memory_space(), Layout::kHostMemorySpace);
  EXPECT_EQ(parsed->element_size_in_bits(), 4);
  EXPECT_EQ(parsed->tiles()[1].dimensions()[1], Tile::kCombineDimension);
  ASSERT_EQ(parsed->split_configs().size(), 2u);
  EXPECT_EQ(parsed->split_configs()[0].split_indices(), std::vector<int64_t>({1, 2}));
  EXPECT_EQ(parsed->physical_shape().ToString(), "s4[8,128]{1,0}");
  EXPECT_EQ(parsed->dynamic_shape_metadata_prefix_bytes(), 16);
  std::string printed = RoundTrip(
      "ENTRY e {\n  ROOT p = s4[16,256]" + layout + " parameter(0)\n}\n");
  EXPECT_NE(printed.find("s4[16,256]" + layout), std::string::npos);
  // Sparse dim level types are kept verbatim.
  auto sparse = ParseShape("f32[8,8]{1,0:D(D,C)}");
  ASSERT_TRUE(sparse.ok()) << sparse.status();
  EXPECT_EQ(sparse->ToString(), "f32[8,8]{1,0:D(D,C)}");
}

TEST(ParserTest, ShapesOfEveryKind) {
  for (const char* s : {"f32[]", "f32[2,3]{1,0}", "f32[<=10,3]{1,0}", "s32[?,4]", "token[]",
                        "opaque[]", "()", "(f32[], (s32[2]{0}, pred[]))", "bf16[1,2,3]{0,2,1}",
                        "s4[8]{0:E(4)}", "f8e4m3fn[2]", "f4e2m1fn[4]", "c128[]", "u2[3]"}) {
    auto shape = ParseShape(s);
    ASSERT_TRUE(shape.ok()) << s << ": " << shape.status();
    EXPECT_EQ(shape->ToString(), s);
  }
  auto dyn = ParseShape("f32[<=10,3]");
  ASSERT_TRUE(dyn.ok());
  EXPECT_TRUE(dyn->is_dynamic_dimension(0));
  EXPECT_FALSE(dyn->is_dynamic_dimension(1));
  EXPECT_EQ(dyn->dimensions(0), 10);
  // `{}` on a scalar is the same as no layout.
  auto scalar = ParseShape("f32[]{}");
  ASSERT_TRUE(scalar.ok());
  EXPECT_FALSE(scalar->has_layout());
  // Long tuples get XLA's index markers.
  auto tuple = ParseShape("(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])");
  ASSERT_TRUE(tuple.ok());
  EXPECT_EQ(tuple->ToString(), "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])");
}

// The parser reuses an array shape it has read before when the text is the
// same; texts that differ only in layout, bounds or tiling stay distinct, and a
// reused operand shape is still checked against the operand's definition.
TEST(ParserTest, RepeatedShapeTextsKeepTheirOwnLayouts) {
  const std::string printed = RoundTrip(
      "ENTRY e {\n"
      "  a = f32[2,3]{1,0} parameter(0)\n"
      "  b = f32[2,3]{0,1} parameter(1)\n"
      "  c = f32[<=2,3]{1,0} parameter(2)\n"
      "  d = f32[2,3]{1,0:T(2,128)} parameter(3)\n"
      "  t = (f32[2,3]{1,0}, f32[2,3]{0,1}) tuple(f32[2,3]{1,0} a, f32[2,3]{0,1} b)\n"
      "  x = f32[2,3]{0,1} copy(f32[2,3]{1,0} a)\n"
      "  y = f32[2,3]{1,0:T(2,128)} copy(f32[2,3]{1,0} a)\n"
      "  ROOT r = (f32[2,3]{0,1}, f32[<=2,3]{1,0}, f32[2,3]{1,0:T(2,128)}, f32[2,3]{1,0:T(2,128)}) "
      "tuple(x, c, d, y)\n"
      "}\n");
  EXPECT_NE(printed.find("  b = f32[2,3]{0,1} parameter(1)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("  c = f32[<=2,3]{1,0} parameter(2)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("  d = f32[2,3]{1,0:T(2,128)} parameter(3)"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("  x = f32[2,3]{0,1} copy("), std::string::npos) << printed;
  // An operand written with a shape seen before, but not its own, is refused.
  auto mismatch = ParseHloModule(
      "ENTRY e {\n"
      "  a = f32[2,3]{1,0} parameter(0)\n"
      "  b = f32[4]{0} parameter(1)\n"
      "  x = f32[2,3]{1,0} copy(f32[2,3]{1,0} a)\n"
      "  ROOT y = f32[4]{0} copy(f32[2,3]{1,0} b)\n"
      "}\n");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("operand 'b' is written with shape f32[2,3]"),
            std::string::npos)
      << mismatch.status();
  // A bad layout is refused every time it is written, not only the first.
  auto bad = ParseHloModule(
      "ENTRY e {\n"
      "  a = f32[2,3]{1,0} parameter(0)\n"
      "  ROOT x = f32[2,3]{2,0} copy(a)\n"
      "}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not a permutation"), std::string::npos) << bad.status();
}

TEST(ParserTest, Literals) {
  std::string printed = RoundTrip(R"(HloModule lits
ENTRY e {
  a = f32[] constant(-inf)
  b = f32[] constant(-0)
  c = f32[] constant(1e-05)
  d = f32[] constant(nan)
  e = f32[2,2]{1,0} constant({ { 1, 2.5 }, { -3, 4 } })
  f = pred[3] constant({true, false, true})
  g = c64[] constant((1, -2))
  h = s8[4] constant({-128, 0, 1, 127})
  i = u64[] constant(18446744073709551615)
  j = bf16[] constant(0.1)
  k = f32[1000] constant({...})
  l = (f32[], s32[]) constant((1.5, 7))
  m = f16[] constant(65504)
  n = f32[0] constant({})
  o = f32[2,1,2] constant({ { { 1, 2 } }, { { 3, 4 } } })
  ROOT t = (f32[], f32[], f32[]) tuple(a, b, c)
})");
  for (const char* expected :
       {"a = f32[] constant(-inf)", "b = f32[] constant(-0)", "c = f32[] constant(1e-05)",
        "d = f32[] constant(nan)", "e = f32[2,2]{1,0} constant({ { 1, 2.5 }, { -3, 4 } })",
        "f = pred[3] constant({true, false, true})", "g = c64[] constant((1, -2))",
        "h = s8[4] constant({-128, 0, 1, 127})", "i = u64[] constant(18446744073709551615)",
        "j = bf16[] constant(0.1001)", "k = f32[1000] constant({...})",
        "l = (f32[], s32[]) constant((1.5, 7))", "m = f16[] constant(65504)",
        "n = f32[0] constant({})", "o = f32[2,1,2] constant({ { { 1, 2 } }, { { 3, 4 } } })"}) {
    EXPECT_NE(printed.find(expected), std::string::npos) << expected << "\n" << printed;
  }
  auto m = ParseTestModule(printed);
  const HloComputation* e = m->entry_computation();
  EXPECT_EQ(e->GetInstructionWithName("e")->literal().GetAsDouble(1), 2.5);
  EXPECT_EQ(e->GetInstructionWithName("h")->literal().GetAsInt64(0), -128);
  EXPECT_EQ(e->GetInstructionWithName("i")->literal().GetAsUint64(0), UINT64_MAX);
  EXPECT_EQ(e->GetInstructionWithName("g")->literal().GetAsComplex(0), std::complex<double>(1, -2));
  EXPECT_TRUE(e->GetInstructionWithName("k")->literal().is_elided());
  EXPECT_TRUE(std::signbit(e->GetInstructionWithName("b")->literal().GetAsDouble(0)));
  EXPECT_EQ(e->GetInstructionWithName("l")->literal().tuple_elements()[1].GetAsInt64(0), 7);
}

TEST(ParserTest, OpcodeSpecificAttributesPrintBack) {
  std::string printed = RoundTrip(R"(HloModule attrs
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}
ENTRY e {
  p = f32[8,16]{1,0} parameter(0)
  q = f32[16,4]{1,0} parameter(1)
  idx = s32[3,1]{1,0} parameter(2)
  zero = f32[] constant(0)
  s = f32[4,8]{1,0} slice(p), slice={[0:8:2], [4:12]}
  pd = f32[10,20]{1,0} pad(p, zero), padding=1_1x2_2
  pdi = f32[15,16]{1,0} pad(p, zero), padding=0_0_1x0_0_0
  d = f32[8,4]{1,0} dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,default}
  rw = f32[4,8]{1,0} reduce-window(p, zero), window={size=2x2 stride=2x2 pad=0_0x0_0}, to_apply=max
  g = f32[3,16]{1,0} gather(p, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}, indices_are_sorted=true
  t = f32[16,8]{0,1} transpose(p), dimensions={1,0}
  io = s32[4,8]{1,0} iota(), iota_dimension=1
  io.s = s32[] constant(1)
  ds = f32[2,16]{1,0} dynamic-slice(p, io.s, io.s), dynamic_slice_sizes={2,16}
  ROOT out = (f32[4,8]{1,0}, f32[8,4]{1,0}) tuple(s, d), sharding={{replicated}, {maximal device=0}}, frontend_attributes={k="v",other="x y"}, metadata={op_name="a/b" source_line=3}, backend_config="cfg"
})");
  for (const char* expected :
       {"slice={[0:8:2], [4:12]}", "padding=1_1x2_2", "padding=0_0_1x0_0_0",
        "dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,default}",
        "window={size=2x2 stride=2x2}, to_apply=max",
        "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
        "slice_sizes={1,16}, indices_are_sorted=true",
        "iota(), iota_dimension=1",
        "tuple(s, d), sharding={{replicated}, {maximal device=0}}, frontend_attributes={k=\"v\",other=\"x y\"}, "
        "metadata={op_name=\"a/b\" source_line=3}, backend_config=\"cfg\""}) {
    EXPECT_NE(printed.find(expected), std::string::npos) << expected << "\n" << printed;
  }
}

TEST(ParserTest, UseBeforeDefinitionIsAnError) {
  // ds uses c, defined on the following line.
  auto m = ParseHloModule("ENTRY e {\n  p = f32[4] parameter(0)\n  ds = f32[2] dynamic-slice(p, c), "
                          "dynamic_slice_sizes={2}\n  c = s32[] constant(0)\n}");
  EXPECT_FALSE(m.ok());
}

TEST(ParserTest, ConditionalForms) {
  std::string printed = RoundTrip(R"(HloModule conds
t {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
f {
  b = f32[] parameter(0)
  ROOT c = f32[] copy(b)
}
ENTRY e {
  pr = pred[] parameter(0)
  x = f32[] parameter(1)
  i = s32[] parameter(2)
  c1 = f32[] conditional(pr, x, x), true_computation=t, false_computation=f
  ROOT c2 = f32[] conditional(i, x, x, x), branch_computations={t, f, t}
})");
  EXPECT_NE(printed.find("conditional(pr, x, x), true_computation=t, false_computation=f"),
            std::string::npos);
  EXPECT_NE(printed.find("conditional(i, x, x, x), branch_computations={t, f, t}"), std::string::npos);
  auto m = ParseTestModule(printed);
  const HloInstruction* c2 = m->entry_computation()->root_instruction();
  EXPECT_EQ(c2->branch_count(), 3);
  EXPECT_EQ(m->GetComputationWithName("t")->caller_instructions().size(), 2u);
}

TEST(ParserTest, ControlPredecessorsAndExecutionThread) {
  std::string printed = RoundTrip(R"(HloModule ctrl
async_body {
  x = f32[4] parameter(0)
  ROOT y = f32[4] sqrt(x)
}, execution_thread="host"
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(p), control-predecessors={a}
  st = ((f32[4]), f32[4], s32[]) async-start(p), calls=async_body, async_execution_thread="host"
  dn = f32[4] async-done(st)
  ROOT r = (f32[4], f32[4], f32[4]) tuple(a, b, dn)
})");
  EXPECT_NE(printed.find("}, execution_thread=\"host\""), std::string::npos) << printed;
  EXPECT_NE(printed.find("b = f32[4] exponential(p), control-predecessors={a}"), std::string::npos);
  EXPECT_NE(printed.find("dn = f32[4] async-done(st), calls=async_body"), std::string::npos) << printed;
  auto m = ParseTestModule(printed);
  const HloComputation* e = m->entry_computation();
  const HloInstruction* a = e->GetInstructionWithName("a");
  const HloInstruction* b = e->GetInstructionWithName("b");
  ASSERT_EQ(a->control_successors().size(), 1u);
  EXPECT_EQ(a->control_successors()[0], b);
  EXPECT_EQ(m->GetComputationWithName("async_body")->execution_thread(), "host");
  EXPECT_TRUE(m->GetComputationWithName("async_body")->IsAsyncComputation());
  EXPECT_EQ(e->GetInstructionWithName("dn")->async_wrapped_instruction()->name(), "y");
}

TEST(ParserTest, AsyncSugarIsExpanded) {
  auto m = ParseTestModule(R"(HloModule sugar, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  s = ((f32[4], f32[4]), f32[4], s32[]) add-start(p, q), async_execution_thread="t", metadata={op_name="x"}
  u = ((f32[4], f32[4]), f32[4], s32[]) add-update(s)
  ROOT d = f32[4] add-done(u)
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry_computation();
  const HloInstruction* s = e->GetInstructionWithName("s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->opcode(), HloOpcode::kAsyncStart);
  EXPECT_EQ(s->async_wrapped_instruction()->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(s->async_wrapped_computation()->execution_thread(), "t");
  EXPECT_EQ(e->GetInstructionWithName("u")->opcode(), HloOpcode::kAsyncUpdate);
  EXPECT_EQ(e->root_instruction()->async_wrapped_computation(), s->async_wrapped_computation());
  // Text order is kept and is the schedule.
  std::vector<std::string> names;
  for (const HloInstruction* i : e->instructions()) names.push_back(i->name());
  EXPECT_EQ(names, std::vector<std::string>({"p", "q", "s", "u", "d"}));
  EXPECT_TRUE(m->schedule().Verify().ok());
  std::string printed = RoundTrip(PrintHloModule(*m));
  EXPECT_NE(printed.find("s = ((f32[4], f32[4]), f32[4], s32[]) async-start(p, q), "
                         "calls=wrapped_add_computation, async_execution_thread=\"t\", metadata={op_name=\"x\"}"),
            std::string::npos)
      << printed;
}

TEST(ParserTest, ModuleHeaderAttributes) {
  std::string printed = RoundTrip(R"(HloModule hdr, is_scheduled=true, input_output_alias={ {0}: (1, {}, must-alias) }, buffer_donor={ (0, {}) }, entry_computation_layout={(f32[4]{0}, f32[4]{0:S(5)})->(f32[4]{0}, f32[4]{0})}, replica_count=2, num_partitions=8, frontend_attributes={attr="1"}
ENTRY e {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0:S(5)} parameter(1)
  c = f32[4]{0} copy(b)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(c, a)
})");
  EXPECT_EQ(printed.substr(0, printed.find('\n')),
            "HloModule hdr, is_scheduled=true, input_output_alias={ {0}: (1, {}, must-alias) }, "
            "buffer_donor={ (0, {}) }, entry_computation_layout={(f32[4]{0}, f32[4]{0:S(5)})->(f32[4]{0}, "
            "f32[4]{0})}, replica_count=2, num_partitions=8, frontend_attributes={attr=\"1\"}");
  auto m = ParseTestModule(printed);
  EXPECT_TRUE(m->input_output_alias_config().ParameterMustAlias(1, {}));
  EXPECT_TRUE(m->buffer_donor_config().ParameterIsBufferDonor(0, {}));
  EXPECT_EQ(m->entry_computation_layout().parameter_shape(1).layout().memory_space(), 5);
  EXPECT_EQ(m->replica_count(), 2);
  EXPECT_EQ(m->num_partitions(), 8);
}

TEST(ParserTest, ScheduledModulePrintsInScheduleOrder) {
  auto m = ParseTestModule(R"(HloModule s, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  b = f32[4] exponential(p)
  a = f32[4] negate(p)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->has_schedule());
  HloComputation* e = m->entry_computation();
  // Swap a and b in the schedule; printing follows the schedule.
  HloInstructionSequence& seq = m->schedule().GetOrCreateSequence(e);
  HloInstruction* a = e->GetInstructionWithName("a");
  HloInstruction* b = e->GetInstructionWithName("b");
  seq.remove_instruction(a);
  seq.insert_instruction(a, 1);
  ASSERT_TRUE(m->schedule().Verify().ok());
  std::string printed = PrintHloModule(*m);
  EXPECT_LT(printed.find("a = f32[4]"), printed.find("b = f32[4]"));
  auto again = ParseHloModule(printed);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value()->schedule().sequence(again.value()->entry_computation()).instructions()[1]->name(),
            "a");
  (void)b;
}

TEST(ParserTest, StandaloneLiteralAndShape) {
  auto lit = ParseLiteral("{1, 2, 3}", Shape(PrimitiveType::S32, {3}));
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(lit->GetAsInt64(2), 3);
  EXPECT_EQ(lit->ToString(), "s32[3] {1, 2, 3}");
  EXPECT_FALSE(ParseLiteral("{1, 2}", Shape(PrimitiveType::S32, {3})).ok());
  EXPECT_FALSE(ParseShape("f32[2").ok());
}

TEST(ParserTest, CustomCallAttributes) {
  std::string printed = RoundTrip(R"(HloModule cc
ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT c = f32[4]{0:S(5)} custom-call(p), custom_call_target="MoveToHost", custom_call_has_side_effect=true, output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={"x": [1, 2], "y": {"z": null}}
})");
  EXPECT_NE(printed.find("custom-call(p), custom_call_target=\"MoveToHost\", "
                         "custom_call_has_side_effect=true, output_to_operand_aliasing={{}: (0, {})}, "
                         "api_version=API_VERSION_TYPED_FFI, backend_config={\"x\": [1, 2], \"y\": {\"z\": null}}"),
            std::string::npos)
      << printed;
  auto m = ParseTestModule(printed);
  const HloInstruction* c = m->entry_computation()->root_instruction();
  EXPECT_TRUE(c->custom_call_has_side_effect());
  EXPECT_TRUE(c->HasSideEffect());
  EXPECT_EQ(c->custom_call_target(), "MoveToHost");
}

}  // namespace
}  // namespace hmo
