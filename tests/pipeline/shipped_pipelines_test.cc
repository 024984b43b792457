// Every pipeline shipped in pipelines/ parses and resolves against the
// plugins this build produces, so a renamed pass or option cannot leave a
// shipped pipeline broken.

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hmo/builtin_passes/framework_passes.h"
#include "hmo/pipeline/pipeline_yaml_parser.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "hmo/plugin/plugin_host.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

TEST(ShippedPipelinesTest, EveryPipelineResolvesAgainstTheBuiltPlugins) {
  PluginHost host;
  // The framework's own passes, as the hmo binary registers them.
  ASSERT_TRUE(RegisterFrameworkPasses(host.mutable_registries().passes).ok());
  for (const absl::Status& error : host.LoadAllPlugins(PluginSearchPath({HMO_TEST_PLUGIN_DIR}))) {
    ADD_FAILURE() << error;
  }
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(HMO_SOURCE_DIR) / "pipelines")) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    auto spec = ParsePipelineYamlFile(entry.path());
    ASSERT_TRUE(spec.ok()) << spec.status();
    for (const PluginReferenceSpec& plugin : spec->plugins) {
      EXPECT_TRUE(host.LoadPluginReference(plugin.reference,
                                           PluginSearchPath({HMO_TEST_PLUGIN_DIR}),
                                           entry.path().parent_path())
                      .ok());
    }
    auto resolved = ResolvePipeline(*spec, host.registries().passes);
    EXPECT_TRUE(resolved.ok()) << resolved.status();
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace hmo
