#include "support/golden_test_support.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "hmo/builtin_passes/framework_passes.h"
#include "hmo/pipeline/changed_check.h"
#include "hmo/pipeline/pass_manager.h"
#include "hmo/pipeline/pipeline_text_parser.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "hmo/pipeline/verify_after_pass.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "support/test_data.h"

namespace hmo::golden {
namespace {

std::vector<std::string> SplitNames(const std::string& names) {
  std::vector<std::string> result;
  std::istringstream in(names);
  for (std::string name; std::getline(in, name, ',');) {
    if (!name.empty()) result.push_back(name);
  }
  return result;
}

// `text` without leading and trailing blanks.
std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

// If `text` starts with `prefix`, removes it and returns true.
bool ConsumePrefix(std::string& text, const std::string& prefix) {
  if (text.compare(0, prefix.size(), prefix) != 0) return false;
  text.erase(0, prefix.size());
  return true;
}

std::string CanonicalText(const std::string& text, const std::string& filename) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, filename);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? (*module)->ToString() : std::string();
}

}  // namespace

std::string ReadFileOrDie(const std::filesystem::path& path) {
  return test_support::ReadFileOrFail(path);
}

// The plugin host with the framework's passes and the plugins `names`
// (comma-separated plugin names,
// e.g. "placement,scheduler": libhmo_<name>.so, else lib<name>.so)
// loaded from HMO_TEST_PLUGIN_DIR, once per test binary.
PluginHost& TestPluginHost(const std::string& names) {
  static PluginHost* host = [&] {
    auto* loaded = new PluginHost();
    // The framework's own passes (memory-report, copy-insertion), as the
    // hmo binary registers them.
    if (absl::Status builtin = RegisterFrameworkPasses(loaded->mutable_registries().passes);
        !builtin.ok()) {
      ADD_FAILURE() << builtin;
    }
    for (const std::string& name : SplitNames(names)) {
      std::filesystem::path file =
          std::filesystem::path(HMO_TEST_PLUGIN_DIR) / ("libhmo_" + name + ".so");
      if (!std::filesystem::exists(file)) {
        file = std::filesystem::path(HMO_TEST_PLUGIN_DIR) / ("lib" + name + ".so");
      }
      absl::Status status = loaded->LoadPlugin(file);
      if (!status.ok()) ADD_FAILURE() << "loading " << file << ": " << status;
    }
    return loaded;
  }();
  return *host;
}

// Runs the textual pipeline `pipeline_text` on `module` with the passes of
// `host`, verifying the module before and after every pass and checking each
// pass's changed result. Returns whether the module changed.
absl::StatusOr<bool> RunPipelineText(HloModule& module, const std::string& pipeline_text,
                                     const PluginHost& host) {
  absl::StatusOr<PipelineSpec> spec = ParsePipelineText(pipeline_text);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<ResolvedPipeline> pipeline = ResolvePipeline(*spec, host.registries().passes);
  if (!pipeline.ok()) return pipeline.status();
  PassManager manager(*pipeline, host.registries());
  VerifyAfterPassInstrumentation verify(VerifyMode::kAlways,
                                        [](const HloModule& m) { return VerifyHloModule(m); });
  ChangedCheckInstrumentation changed_check;
  manager.AddInstrumentation(&verify);
  manager.AddInstrumentation(&changed_check);
  absl::StatusOr<PipelineRunSummary> summary = manager.Run(module);
  if (!summary.ok()) return summary.status();
  return summary->changed;
}

// Every `*.hlo` case in `directory` (files ending in `.expected.hlo` are
// results, not cases), sorted by name.
std::vector<GoldenCase> FindGoldenCases(const std::filesystem::path& directory) {
  std::vector<GoldenCase> cases;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string file = entry.path().filename().string();
    auto ends_with = [&](const std::string& suffix) {
      return file.size() >= suffix.size() &&
             file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (!ends_with(".hlo") || ends_with(".expected.hlo")) continue;
    GoldenCase golden;
    golden.name = file.substr(0, file.size() - 4);
    golden.input = entry.path();
    golden.expected = directory / (golden.name + ".expected.hlo");
    std::istringstream text(ReadFileOrDie(entry.path()));
    for (std::string line; std::getline(text, line);) {
      std::string rest = Trim(line);
      if (!ConsumePrefix(rest, "//")) break;
      rest = Trim(rest);
      if (ConsumePrefix(rest, "RUN:")) {
        golden.pipeline = Trim(rest);
      } else if (ConsumePrefix(rest, "CHANGED:")) {
        golden.changed = Trim(rest) == "true";
      } else if (ConsumePrefix(rest, "ERROR:")) {
        golden.error = Trim(rest);
      }
    }
    cases.push_back(std::move(golden));
  }
  std::sort(cases.begin(), cases.end(),
            [](const GoldenCase& a, const GoldenCase& b) { return a.name < b.name; });
  return cases;
}

// Runs one case with gtest expectations.
void RunGoldenCase(const GoldenCase& golden, const PluginHost& host) {
  SCOPED_TRACE(golden.input.string());
  ASSERT_FALSE(golden.pipeline.empty()) << "missing `// RUN: <pipeline>` line";
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(ReadFileOrDie(golden.input), golden.input.string());
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<bool> changed = RunPipelineText(**module, golden.pipeline, host);
  if (!golden.error.empty()) {
    ASSERT_FALSE(changed.ok()) << "expected an error containing: " << golden.error;
    EXPECT_NE(std::string(changed.status().message()).find(golden.error), std::string::npos)
        << "actual error: " << changed.status();
    return;
  }
  ASSERT_TRUE(changed.ok()) << changed.status();
  if (golden.changed.has_value()) {
    EXPECT_EQ(*changed, *golden.changed);
  }
  const std::string actual = (*module)->ToString();
  if (const char* update = std::getenv("HMO_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(golden.expected) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(golden.expected)) << "missing " << golden.expected;
  EXPECT_EQ(actual, CanonicalText(ReadFileOrDie(golden.expected), golden.expected.string()));
}

}  // namespace hmo::golden
