// The stack-frame tables current XLA writes after the HloModule line: parsed
// into the module's StackFrameIndex, printed back byte for byte, resolved to
// call stacks, and refused with a position when an entry is inconsistent.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo_test_util.h"
#include "hmo/ir/instruction_source.h"
#include "hmo/ir/stack_frame_index.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"

namespace hmo {
namespace {

// As JAX 0.10 writes it (a dump of `jnp.tanh(x @ y)` called from <module>).
constexpr char kDumped[] = R"(HloModule jit_f, entry_computation_layout={(f32[4,4]{1,0})->f32[4,4]{1,0}}

FileNames
1 "/tmp/t.py"

FunctionNames
1 "<module>"
2 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=4 end_line=4 column=0 end_column=44}
2 {file_name_id=1 function_name_id=2 line=3 end_line=3 column=11 end_column=37}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}


ENTRY %main.2 (x.1: f32[4,4]) -> f32[4,4] {
  %x.1 = f32[4,4]{1,0} parameter(0), metadata={op_name="x"}
  ROOT %tanh.0 = f32[4,4]{1,0} tanh(f32[4,4]{1,0} %x.1), metadata={op_name="jit(f)/tanh" stack_frame_id=2}
}

)";

std::string ErrorLine(std::string_view text) { return testing::ParseErrorLine(text); }

std::string Replace(std::string text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

// The source a report names: the innermost frame first, then its callers;
// older metadata's source_file/source_line; nothing without metadata.
TEST(StackFrameIndexTest, InstructionSourceIsTheInnermostFrame) {
  auto m = ParseHloModule(kDumped, "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloComputation* entry = (*m)->entry_computation();
  const HloInstruction* tanh = entry->GetInstructionWithName("tanh.0");
  ASSERT_NE(tanh, nullptr);
  EXPECT_EQ(InstructionSource(*tanh), "/tmp/t.py:3 (f)");
  EXPECT_EQ(InstructionCallStack(*tanh),
            (std::vector<std::string>{"/tmp/t.py:3 (f)", "/tmp/t.py:4 (<module>)"}));
  EXPECT_EQ(InstructionSource(*entry->GetInstructionWithName("x.1")), "");

  auto old = ParseHloModule(R"(HloModule old
ENTRY %main (x: f32[2]) -> f32[2] {
  %x = f32[2]{0} parameter(0)
  ROOT %n = f32[2]{0} negate(%x), metadata={op_type="Neg" op_name="n" source_file="model.py" source_line=17}
}
)",
                            "old.hlo");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(InstructionSource(*(*old)->entry_computation()->root_instruction()), "model.py:17");
}

TEST(StackFrameIndexTest, ParsesTheFourTables) {
  auto m = ParseHloModule(kDumped, "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  const StackFrameIndex& index = (*m)->stack_frame_index();
  ASSERT_EQ(index.file_names().size(), 1u);
  EXPECT_EQ(index.file_names()[0], "/tmp/t.py");
  ASSERT_EQ(index.function_names().size(), 2u);
  EXPECT_EQ(index.function_names()[1], "f");
  ASSERT_EQ(index.file_locations().size(), 2u);
  EXPECT_EQ(index.file_locations()[1],
            (FileLocation{.file_name_id = 1, .function_name_id = 2, .line = 3, .end_line = 3,
                          .column = 11, .end_column = 37}));
  ASSERT_EQ(index.stack_frames().size(), 2u);
  // Written as the parent id plus one: frame 1 has no caller, frame 2's is 1.
  EXPECT_EQ(index.stack_frames()[0].parent_frame_id, 0);
  EXPECT_EQ(index.stack_frames()[1].parent_frame_id, 1);
}

TEST(StackFrameIndexTest, LongFormPrintsTheDumpBackByteForByte) {
  auto m = ParseHloModule(kDumped, "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintHloModule(**m, HloPrintOptions::LongForm()), kDumped);
}

TEST(StackFrameIndexTest, ShortFormKeepsTablesAndRoundTrips) {
  auto m = ParseHloModule(kDumped, "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string once = PrintHloModule(**m);
  EXPECT_NE(once.find("\n\nFileNames\n1 \"/tmp/t.py\"\n\nFunctionNames\n"), std::string::npos) << once;
  EXPECT_NE(once.find("stack_frame_id=2"), std::string::npos);
  auto again = ParseHloModule(once, "once.hlo");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE((*again)->stack_frame_index() == (*m)->stack_frame_index());
  EXPECT_EQ(PrintHloModule(**again), once);
}

TEST(StackFrameIndexTest, CallStackResolvesInnermostFirst) {
  auto m = ParseHloModule(kDumped, "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction* tanh = (*m)->entry_computation()->root_instruction();
  const int64_t frame = StackFrameIdFromMetadata(*tanh->GetRawAttribute("metadata"));
  ASSERT_EQ(frame, 2);
  std::vector<SourceFrame> stack = (*m)->stack_frame_index().CallStack(frame);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[0].function, "f");
  EXPECT_EQ(stack[0].line, 3);
  EXPECT_EQ(stack[0].column, 11);
  EXPECT_EQ(stack[1].function, "<module>");
  EXPECT_EQ(stack[1].file, "/tmp/t.py");
  EXPECT_TRUE((*m)->stack_frame_index().CallStack(0).empty());
}

TEST(StackFrameIndexTest, SurvivesClone) {
  auto m = ParseHloModule(kDumped, "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  std::unique_ptr<HloModule> copy = (*m)->Clone();
  EXPECT_TRUE(copy->stack_frame_index() == (*m)->stack_frame_index());
  EXPECT_EQ(PrintHloModule(*copy), PrintHloModule(**m));
}

TEST(StackFrameIndexTest, MetadataStackFrameIdInsideStringIsNotAnId) {
  EXPECT_EQ(StackFrameIdFromMetadata(R"({op_name="stack_frame_id=7" stack_frame_id=3})"), 3);
  EXPECT_EQ(StackFrameIdFromMetadata(R"({op_name="a stack_frame_id=7"})"), 0);
  EXPECT_EQ(StackFrameIdFromMetadata("{}"), 0);
}

TEST(StackFrameIndexTest, EntryIdsMustCountFromOne) {
  EXPECT_EQ(ErrorLine(Replace(kDumped, "2 \"f\"", "3 \"f\"")),
            "t.hlo:8:1: error: FunctionNames entry has id 3, expected 2 (ids count from 1 in order)");
}

TEST(StackFrameIndexTest, FileLocationMustNameAFile) {
  EXPECT_EQ(ErrorLine(Replace(kDumped, "2 {file_name_id=1 function_name_id=2", "2 {file_name_id=5 function_name_id=2")),
            "t.hlo:12:1: error: file_name_id=5 does not name an entry of FileNames (1 entries)");
  EXPECT_EQ(ErrorLine(Replace(kDumped, "function_name_id=2 line=3", "function_name_id=0 line=3")),
            "t.hlo:12:1: error: function_name_id=0 does not name an entry of FunctionNames (2 entries)");
}

TEST(StackFrameIndexTest, FrameMustNameALocationAndAnEarlierParent) {
  EXPECT_EQ(ErrorLine(Replace(kDumped, "2 {file_location_id=2", "2 {file_location_id=9")),
            "t.hlo:16:1: error: file_location_id=9 does not name an entry of FileLocations (2 entries)");
  EXPECT_EQ(ErrorLine(Replace(kDumped, "2 {file_location_id=2 parent_frame_id=2}",
                              "2 {file_location_id=2 parent_frame_id=3}")),
            "t.hlo:16:1: error: parent_frame_id=3 names frame 2: a caller's frame must come before "
            "the frames it calls");
  EXPECT_EQ(ErrorLine(Replace(kDumped, "parent_frame_id=1}", "parent_frame_id=0}")),
            "t.hlo:15:1: error: parent_frame_id=0: XLA writes the parent id plus one, so 1 means no "
            "parent");
}

TEST(StackFrameIndexTest, UnknownFieldAndBadSyntaxArePositioned) {
  EXPECT_EQ(ErrorLine(Replace(kDumped, "end_line=3 column=11", "end_line=3 col=11")),
            "t.hlo:12:56: error: unknown FileLocations field 'col'");
  EXPECT_EQ(ErrorLine(Replace(kDumped, "1 \"/tmp/t.py\"", "1 /tmp/t.py")),
            "t.hlo:4:3: error: expected a string, got '/'");
}

TEST(StackFrameIndexTest, MetadataMustNameAnExistingFrame) {
  EXPECT_EQ(ErrorLine(Replace(kDumped, "stack_frame_id=2}", "stack_frame_id=7}")),
            "t.hlo:21:90: error: stack_frame_id=7 does not name a frame of the StackFrames table (2 "
            "frames)");
}

TEST(StackFrameIndexTest, StackFrameIdWithoutTablesIsKept) {
  // XLA's own test modules carry ids without tables; XLA's parser takes them.
  auto m = ParseHloModule(
      "ENTRY e {\n  ROOT p = f32[] parameter(0), metadata={op_name=\"p\" stack_frame_id=146}\n}\n",
      "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_NE(PrintHloModule(**m).find("stack_frame_id=146"), std::string::npos);
}

TEST(StackFrameIndexTest, ComputationNamedLikeATableIsAComputation) {
  auto m = ParseHloModule("HloModule m\n\nFileNames {\n  ROOT p = f32[] parameter(0)\n}\n", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->entry_computation()->name(), "FileNames");
  EXPECT_TRUE((*m)->stack_frame_index().empty());
}

}  // namespace
}  // namespace hmo
