#ifndef HMO_TESTS_SUPPORT_GOLDEN_TEST_SUPPORT_H_
#define HMO_TESTS_SUPPORT_GOLDEN_TEST_SUPPORT_H_

// Golden tests for passes: an input module, the pipeline to run on it, and
// the expected result, all in files beside the test.
//
// A case is `<name>.hlo` whose leading comment lines say what to run and
// what to expect:
//   // RUN: <textual pipeline>          (required; e.g. `host-offloader`)
//   // CHANGED: true | false            (optional; what the pipeline reports)
//   // ERROR: <text>                    (optional; the run must fail with it)
// and, unless an error is expected, `<name>.expected.hlo`: the module after
// the pipeline. Both the expected module and the result are parsed and
// printed canonically before they are compared, so the expected file may use
// any spelling the parser accepts. Setting HMO_UPDATE_GOLDEN=1 rewrites the
// expected files from the results (review the diff!).
//
// The passes come from the plugins the test loads with TestPluginHost (from
// HMO_TEST_PLUGIN_DIR). The pipeline verifies the module before and after
// every pass and checks that each pass's `changed` matches the text.
//
// Shared by the placement, aliasing and propagation plugin tests.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/plugin/plugin_host.h"

namespace hmo::golden {

// The bytes of `path`; a test failure when it cannot be read.
std::string ReadFileOrDie(const std::filesystem::path& path);

// The plugin host with the framework's passes and the plugins `names`
// (comma-separated plugin names,
// e.g. "placement,scheduler": libhmo_<name>.so, else lib<name>.so)
// loaded from HMO_TEST_PLUGIN_DIR, once per test binary.
PluginHost& TestPluginHost(const std::string& names);

// Runs the textual pipeline `pipeline_text` on `module` with the passes of
// `host`, verifying the module before and after every pass and checking each
// pass's changed result. Returns whether the module changed.
absl::StatusOr<bool> RunPipelineText(HloModule& module, const std::string& pipeline_text,
                                     const PluginHost& host);

struct GoldenCase {
  std::string name;  // file stem, e.g. "while_loop_offload"
  std::filesystem::path input;
  std::filesystem::path expected;
  std::string pipeline;
  std::optional<bool> changed;
  std::string error;
};

// Every `*.hlo` case in `directory` (files ending in `.expected.hlo` are
// results, not cases), sorted by name.
std::vector<GoldenCase> FindGoldenCases(const std::filesystem::path& directory);

// Runs one case with gtest expectations.
void RunGoldenCase(const GoldenCase& golden, const PluginHost& host);

}  // namespace hmo::golden

#endif  // HMO_TESTS_SUPPORT_GOLDEN_TEST_SUPPORT_H_
