// Source attribution of what fit decides and of what fusions fused, end to
// end: each recompute/offload line of `hmo run pipelines/fit.yaml --report`
// ends with the user's line that made its value, and `hmo stats --format
// json` lists the lines of a fusion's fused ops. The expected lines are
// worked out from the dump's own StackFrames tables (dump_stack_frames.h).

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dump_stack_frames.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/hmo_cli_runner.h"
#include "support/test_data.h"

namespace {

namespace fs = std::filesystem;
using ::hmo::test_support::DumpStackFrames;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kTransformerRelative =
    "corpus/transformer_adam/module_0000.jit_transformer_adam_step.cpu_after_optimizations.txt";

std::string Data(const std::string& relative) {
  return std::string(HMO_TEST_DATA_DIR) + "/" + relative;
}

const std::string kFit = std::string(HMO_SOURCE_DIR) + "/pipelines/fit.yaml";

fs::path TempPath(const std::string& name) {
  return fs::temp_directory_path() / ("hmo_fit_source_" + std::to_string(getpid()) + "_" + name);
}

TEST(FitSourceCliTest, EachDecisionEndsWithTheLineThatMadeItsValue) {
  const std::string text = hmo::test_support::ReadTestData(kTransformerRelative);
  ASSERT_FALSE(text.empty());
  const DumpStackFrames dump(text);
  const fs::path out = TempPath("transformer.hlo");
  // About two thirds of its device bytes: fit recomputes and offloads.
  auto run =
      hmo::test_support::RunHmoCli("run " + kFit + " " + Data(kTransformerRelative) + " -o " +
                                   out.string() + " --memory-limit 300000 --report");
  fs::remove(out);
  ASSERT_EQ(run.exit_code, 0) << run.err;

  const std::regex step(
      R"(step \d+: (recompute|offload) ([^ ]+) .*?(; made at (.+)|; no source in the module's metadata)$)");
  int decisions = 0, checked = 0, kinds = 0;
  std::set<std::string> seen_kinds;
  std::istringstream lines(run.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("step ") == std::string::npos || line.find(" measured)") == std::string::npos) {
      continue;
    }
    ++decisions;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(line, m, step)) << line;
    seen_kinds.insert(m[1]);
    const std::string value = m[2];
    const std::string source = m[4];
    // Values of the dump (not the recomputations and copies fit made): the
    // line is the innermost frame of the value's own stack_frame_id, or for
    // a fusion without one, a line of what it fused.
    if (dump.Definition(value).empty()) continue;
    const std::string own = dump.InnermostFrame(value);
    if (!own.empty()) {
      EXPECT_EQ(source, own) << line;
    } else if (!dump.FusedFrames(value).empty()) {
      EXPECT_TRUE(dump.FusedFrames(value).count(source)) << line;
    } else {
      EXPECT_THAT(line, HasSubstr("; no source in the module's metadata")) << line;
      continue;
    }
    EXPECT_THAT(source, HasSubstr("generate.py:")) << line;
    ++checked;
  }
  kinds = static_cast<int>(seen_kinds.size());
  EXPECT_GE(decisions, 5) << run.out;
  EXPECT_GE(checked, 5) << run.out;
  EXPECT_EQ(kinds, 2) << "both recompute and offload decisions\n" << run.out;
}

// A scheduled module without metadata: %big is live across the peak of %a,
// %c and %d.
const char kNoMetadata[] = R"(HloModule no_metadata, is_scheduled=true

%fused_negate (param_0: f32[1024]) -> f32[1024] {
  %param_0 = f32[1024]{0} parameter(0)
  ROOT %negate = f32[1024]{0} negate(%param_0)
}

ENTRY %main (p: f32[1024]) -> f32[1024] {
  %p = f32[1024]{0} parameter(0)
  %big = f32[1024]{0} fusion(%p), kind=kLoop, calls=%fused_negate
  %a = f32[1024]{0} multiply(%p, %big)
  %c = f32[1024]{0} log(%p)
  %d = f32[1024]{0} sine(%p)
  %e = f32[1024]{0} add(%a, %c)
  %f = f32[1024]{0} add(%e, %d)
  ROOT %out = f32[1024]{0} add(%f, %big)
}
)";

TEST(FitSourceCliTest, ADecisionOnAValueWithoutMetadataSaysSo) {
  const fs::path in = TempPath("no_metadata.hlo");
  const fs::path out = TempPath("no_metadata_out.hlo");
  std::ofstream(in) << kNoMetadata;
  auto run = hmo::test_support::RunHmoCli("run --passes=fit " + in.string() + " -o " +
                                          out.string() + " --memory-limit 20000 --report");
  fs::remove(in);
  fs::remove(out);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("step 1: "));
  EXPECT_THAT(run.out, HasSubstr(" measured); no source in the module's metadata\n"));
  EXPECT_THAT(run.out, Not(HasSubstr("made at")));
}

// One buffer object of `hmo stats --format json` (one line each).
struct JsonBuffer {
  std::string instruction;
  std::string source;  // empty for null
  std::vector<std::string> fused_sources;
  int not_shown = 0;
};

std::vector<JsonBuffer> Buffers(const std::string& json) {
  std::vector<JsonBuffer> buffers;
  const std::regex buffer(
      R"re(\{"value_id": \d+, "instruction": "([^"]+)".*"source": (null|"([^"]*)"), "call_stack": \[.*\], "fused_sources": \[(.*)\], "fused_sources_not_shown": (\d+)\})re");
  const std::regex item(R"re("([^"]*)")re");
  std::istringstream lines(json);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, buffer)) continue;
    JsonBuffer entry{m[1], m[3], {}, std::stoi(m[5])};
    const std::string items = m[4];
    for (auto it = std::sregex_iterator(items.begin(), items.end(), item);
         it != std::sregex_iterator(); ++it) {
      entry.fused_sources.push_back((*it)[1]);
    }
    buffers.push_back(std::move(entry));
  }
  return buffers;
}

TEST(FitSourceCliTest, StatsJsonListsTheLinesOfAFusionsFusedOps) {
  const std::string text = hmo::test_support::ReadTestData(kTransformerRelative);
  ASSERT_FALSE(text.empty());
  const DumpStackFrames dump(text);
  auto run = hmo::test_support::RunHmoCli("stats --format json " + Data(kTransformerRelative));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<JsonBuffer> buffers = Buffers(run.out);
  ASSERT_GT(buffers.size(), 100u) << run.out.substr(0, 4000);
  int fusions = 0, several = 0;
  for (const JsonBuffer& buffer : buffers) {
    const std::string definition = dump.Definition(buffer.instruction);
    ASSERT_FALSE(definition.empty()) << buffer.instruction;
    const std::set<std::string> expected = dump.FusedFrames(buffer.instruction);
    if (definition.find(" fusion(") == std::string::npos) {
      EXPECT_TRUE(buffer.fused_sources.empty()) << buffer.instruction;
      continue;
    }
    ++fusions;
    // Distinct, at most 8 named, the rest counted.
    const std::set<std::string> named(buffer.fused_sources.begin(), buffer.fused_sources.end());
    EXPECT_EQ(named.size(), buffer.fused_sources.size()) << buffer.instruction;
    EXPECT_LE(buffer.fused_sources.size(), 8u);
    EXPECT_EQ(buffer.fused_sources.size() + buffer.not_shown, expected.size())
        << buffer.instruction;
    if (buffer.not_shown == 0) {
      EXPECT_EQ(named, expected) << buffer.instruction;
    } else {
      for (const std::string& source : named) EXPECT_TRUE(expected.count(source)) << source;
    }
    several += expected.size() >= 2;
    // Its own line when it has one, else one of what it fused.
    const std::string own = dump.InnermostFrame(buffer.instruction);
    if (!own.empty()) {
      EXPECT_EQ(buffer.source, own) << buffer.instruction;
    } else if (!expected.empty()) {
      EXPECT_TRUE(expected.count(buffer.source)) << buffer.instruction;
    }
  }
  EXPECT_GT(fusions, 50);
  EXPECT_GT(several, 5);
}

// A fusion XLA left without metadata takes its fused root's line; the
// other fused lines follow in the fused computation's order.
const char kFusionWithoutMetadata[] = R"(HloModule fused_lines

%fused (p0: f32[64], p1: f32[64]) -> f32[64] {
  %p0 = f32[64]{0} parameter(0)
  %p1 = f32[64]{0} parameter(1)
  %m = f32[64]{0} multiply(%p0, %p1), metadata={op_name="jit(f)/mul" source_file="model.py" source_line=8}
  %n = f32[64]{0} negate(%m), metadata={op_name="jit(f)/neg" source_file="layers.py" source_line=3}
  ROOT %a = f32[64]{0} add(%n, %p0), metadata={op_name="jit(f)/add" source_file="model.py" source_line=9}
}

ENTRY %main (x: f32[64], y: f32[64]) -> f32[64] {
  %x = f32[64]{0} parameter(0)
  %y = f32[64]{0} parameter(1)
  %fusion = f32[64]{0} fusion(%x, %y), kind=kLoop, calls=%fused
  ROOT %out = f32[64]{0} exponential(%fusion)
}
)";

TEST(FitSourceCliTest, AFusionWithoutMetadataIsNamedByWhatItFused) {
  const fs::path in = TempPath("fused_lines.hlo");
  std::ofstream(in) << kFusionWithoutMetadata;
  auto json = hmo::test_support::RunHmoCli("stats --format json " + in.string());
  auto table = hmo::test_support::RunHmoCli("stats " + in.string());
  auto html = hmo::test_support::RunHmoCli("stats --format html " + in.string());
  fs::remove(in);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"instruction\": \"fusion\""));
  EXPECT_THAT(json.out,
              HasSubstr("\"source\": \"model.py:9\", \"call_stack\": [\"model.py:9\"], "
                        "\"fused_sources\": [\"model.py:8\", \"layers.py:3\", \"model.py:9\"], "
                        "\"fused_sources_not_shown\": 0}"));
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_THAT(html.out, HasSubstr("made at model.py:9\nfuses ops from model.py:8, layers.py:3, "
                                  "model.py:9</title>"));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("model.py:9; fuses ops from model.py:8, layers.py:3, "
                                   "model.py:9\n"));
}

}  // namespace
