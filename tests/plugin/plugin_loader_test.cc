// The plugin loader: the good fixture plugins load and register what they
// provide; each broken fixture is refused with a message that names the file
// and says why.

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../fixtures/fixture_more_passes/instruction_count_analysis.h"
#include "fmt/format.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/plugin/build_fingerprint.h"
#include "hmo/plugin/framework_fingerprint.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/plugin/plugin_library.h"
#include "hmo/strategy_host/scheduler_strategy_adapter.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const fs::path kGoodDir = fs::path(HMO_BINARY_DIR) / "tests/fixtures/good";
const fs::path kBrokenDir = fs::path(HMO_BINARY_DIR) / "tests/fixtures/broken";

fs::path Good(std::string_view name) { return kGoodDir / fmt::format("libhmo_{}.so", name); }
fs::path Broken(std::string_view name) { return kBrokenDir / fmt::format("libhmo_{}.so", name); }

// Loads `file` into a fresh host and returns the error message (checking it
// starts with the file name).
std::string LoadError(const fs::path& file, absl::StatusCode code = absl::StatusCode::kFailedPrecondition) {
  PluginHost host;
  absl::Status status = host.LoadPlugin(file);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith(file.string() + ": "));
  EXPECT_TRUE(host.plugins().empty());
  return std::string(status.message());
}

TEST(PluginLoaderTest, LoadsACxxPassPluginAndRecordsWhatItRegistered) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(Good("fixture_passes")).ok());
  ASSERT_EQ(host.plugins().size(), 1u);
  const LoadedPlugin& plugin = host.plugins()[0];
  EXPECT_EQ(plugin.name, "fixture-passes");
  EXPECT_EQ(plugin.version, "1.0.0");
  EXPECT_TRUE(plugin.cxx);
  EXPECT_EQ(plugin.abi_major, HMO_PLUGIN_ABI_MAJOR);
  EXPECT_EQ(plugin.file, fs::canonical(Good("fixture_passes")));
  EXPECT_THAT(plugin.passes, ElementsAre("fixture-grow-name", "fixture-misreport",
                                         "fixture-break-shape", "fixture-fail",
                                         "fixture-tag-module"));
  const RegisteredPass* grow = host.registries().passes.Find("fixture-grow-name");
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->plugin, "fixture-passes");
  EXPECT_EQ(grow->registration.options.Keys(), (std::vector<std::string>{"suffix", "max-length"}));
}

TEST(PluginLoaderTest, LoadsACPluginsStrategies) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(Good("fixture_c_strategies")).ok());
  const LoadedPlugin& plugin = host.plugins()[0];
  EXPECT_FALSE(plugin.cxx);
  EXPECT_THAT(plugin.strategies, ElementsAre("fixture-text-order", "fixture-misbehave"));
  const RegisteredSchedulerStrategy* strategy =
      host.registries().strategies.Find("fixture-text-order");
  ASSERT_NE(strategy, nullptr);
  EXPECT_EQ(strategy->plugin, "fixture-c-strategies");
  EXPECT_EQ(strategy->registration.description, "keeps the computation's instruction order");
}

TEST(PluginLoaderTest, PluginProvidedBackendsAndAnalysesWorkAcrossTheBoundary) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(Good("fixture_more_passes")).ok());
  const LoadedPlugin& plugin = host.plugins()[0];
  EXPECT_THAT(plugin.backends, ElementsAre("fixture-backend"));
  EXPECT_THAT(plugin.analyses, ElementsAre("fixture-instruction-count"));
  const RegisteredBackend* backend = host.registries().backends.Find("fixture-backend");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->registration.backend->MemoryModel().assignment.alignment, 64);

  auto module = ParseHloModule(
      "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  AnalysisManager analyses(**module, &host.registries().analyses);
  auto count = analyses.Get<hmo_fixture::InstructionCountAnalysis>();
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ((*count)->instructions, 2);
}

TEST(PluginLoaderTest, LoadingTheSameFileTwiceIsANoOp) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(Good("fixture_passes")).ok());
  ASSERT_TRUE(host.LoadPlugin(kGoodDir / "." / "libhmo_fixture_passes.so").ok());
  EXPECT_EQ(host.plugins().size(), 1u);
}

TEST(PluginLoaderTest, SamePluginNameFromAnotherFileIsRefusedNamingTheFirst) {
  const fs::path copy_dir = fs::temp_directory_path() / fmt::format("hmo_loader_{}", getpid());
  fs::create_directories(copy_dir);
  const fs::path copy = copy_dir / "libhmo_fixture_passes_copy.so";
  fs::copy_file(Good("fixture_passes"), copy, fs::copy_options::overwrite_existing);
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(Good("fixture_passes")).ok());
  absl::Status status = host.LoadPlugin(copy);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(status.message(), fmt::format("{}: plugin 'fixture-passes' is already loaded from {}",
                                          copy.string(),
                                          fs::canonical(Good("fixture_passes")).string()));
  fs::remove_all(copy_dir);
}

TEST(PluginLoaderTest, MissingFile) {
  EXPECT_THAT(LoadError(kBrokenDir / "libhmo_no_such_plugin.so", absl::StatusCode::kNotFound),
              HasSubstr("plugin file not found"));
}

TEST(PluginLoaderTest, NotASharedObjectShowsTheDynamicLoadersReason) {
  const fs::path garbage =
      fs::temp_directory_path() / fmt::format("hmo_loader_garbage_{}.so", getpid());
  std::ofstream(garbage) << std::string(200, '#') << "\nthis is not an ELF file\n";
  EXPECT_THAT(LoadError(garbage), ::testing::ContainsRegex("cannot load: .*invalid ELF header"));
  fs::remove(garbage);
}

TEST(PluginLoaderTest, UnresolvedSymbolShowsDlerror) {
  EXPECT_THAT(LoadError(Broken("broken_undefined_symbol")),
              ::testing::ContainsRegex(
                  "cannot load: .*undefined symbol: hmo_fixture_symbol_nobody_defines"));
}

TEST(PluginLoaderTest, NoEntryPoint) {
  EXPECT_THAT(LoadError(Broken("broken_no_entry_point")),
              HasSubstr("no entry point 'hmoGetPluginInfo' (is it an hmo plugin?"));
}

TEST(PluginLoaderTest, NullPluginInfo) {
  EXPECT_THAT(LoadError(Broken("broken_null_info")), HasSubstr("hmoGetPluginInfo() returned NULL"));
}

TEST(PluginLoaderTest, AbiMajorMismatchNamesBothVersions) {
  EXPECT_THAT(LoadError(Broken("broken_abi_major")),
              HasSubstr(fmt::format("plugin ABI version is {}.4 but this hmo supports {}.x (up to "
                                    "{}.{})",
                                    HMO_PLUGIN_ABI_MAJOR + 1, HMO_PLUGIN_ABI_MAJOR,
                                    HMO_PLUGIN_ABI_MAJOR, HMO_PLUGIN_ABI_MINOR)));
}

TEST(PluginLoaderTest, StructTooSmall) {
  EXPECT_THAT(LoadError(Broken("broken_struct_size")),
              HasSubstr(fmt::format("plugin info struct_size is {} bytes, less than the {} bytes "
                                    "of ABI 1.0",
                                    offsetof(HmoPluginInfo, register_passes),
                                    HMO_PLUGIN_INFO_MIN_SIZE)));
}

TEST(PluginLoaderTest, FingerprintMismatchNamesBothFingerprints) {
  EXPECT_THAT(LoadError(Broken("broken_fingerprint")),
              HasSubstr(fmt::format("plugin 'broken-fingerprint' was built for 'hmo 0.0.1; gcc "
                                    "4.8.5; libstdc++ 4 (20150623) cxx11-abi=0' but this hmo is "
                                    "'{}'",
                                    FrameworkBuildFingerprint())));
}

// Same compiler, library and headers, assertions the other way: the build
// settings are part of the fingerprint, and the refusal names the two.
TEST(PluginLoaderTest, FingerprintNamesTheBuildSettings) {
  const std::string host(FrameworkBuildFingerprint());
#ifdef NDEBUG
  const std::string host_setting = "assertions=off", plugin_setting = "assertions=on";
#else
  const std::string host_setting = "assertions=on", plugin_setting = "assertions=off";
#endif
  ASSERT_THAT(host, HasSubstr(host_setting));
  std::string plugin = host;
  plugin.replace(plugin.find(host_setting), host_setting.size(), plugin_setting);
  EXPECT_THAT(LoadError(Broken("broken_build_settings")),
              HasSubstr(fmt::format("plugin 'broken-build-settings' was built for '{}' but this "
                                    "hmo is '{}'",
                                    plugin, host)));
}

TEST(PluginLoaderTest, CPluginMayNotSetCxxCallbacks) {
  EXPECT_THAT(LoadError(Broken("broken_c_with_cxx_callback")),
              HasSubstr("has no build fingerprint (a C plugin) but sets register_passes"));
}

TEST(PluginLoaderTest, FailingCallbackShowsItsMessage) {
  EXPECT_THAT(LoadError(Broken("broken_callback_fails")),
              HasSubstr("plugin 'broken-callback-fails': register_passes failed: the fixture "
                        "refuses to register anything"));
}

// The strategies hmo ships are C++ (they link the framework), so they carry
// the build fingerprint, as every C++ plugin must.
TEST(PluginLoaderTest, BuiltInStrategiesAreFingerprintedCxxPlugins) {
  for (const char* name : {"list", "dfs", "post_order", "bfs", "local_search", "exact"}) {
    PluginHost host;
    const fs::path file = fs::path(HMO_TEST_PLUGIN_DIR) / fmt::format("libhmo_{}_strategy.so", name);
    ASSERT_TRUE(host.LoadPlugin(file).ok()) << file;
    ASSERT_EQ(host.plugins().size(), 1u);
    EXPECT_TRUE(host.plugins().front().cxx) << file;
  }
}

// The minor-version rules of plugin_abi.h, from both sides: a plugin of minor
// 0 and one of a newer minor, whose structs are longer than the host's.
TEST(PluginLoaderTest, PluginsOfOtherMinorVersionsLoad) {
  const fs::path minor_dir = fs::path(HMO_BINARY_DIR) / "tests/fixtures/minor";
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(minor_dir / "libhmo_fixture_abi_minor_zero.so").ok());
  ASSERT_TRUE(host.LoadPlugin(minor_dir / "libhmo_fixture_abi_newer_minor.so").ok());
  ASSERT_EQ(host.plugins().size(), 2u);
  EXPECT_EQ(host.plugins()[0].abi_minor, 0u);
  EXPECT_EQ(host.plugins()[1].abi_minor, static_cast<uint32_t>(HMO_PLUGIN_ABI_MINOR + 1));
  EXPECT_FALSE(host.plugins()[1].cxx);
  const RegisteredSchedulerStrategy* newer =
      host.registries().strategies.Find("fixture-newer-minor-order");
  ASSERT_NE(newer, nullptr);
  EXPECT_EQ(newer->registration.description, "registered with a longer struct than the host's");
  EXPECT_NE(host.registries().strategies.Find("fixture-minor-zero-order"), nullptr);
  // Both schedule a module through the host's (1.1) view.
  auto module = ParseHloModule(R"(
HloModule minor
ENTRY e {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT a = f32[4] add(n, p)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  for (const char* strategy : {"fixture-minor-zero-order", "fixture-newer-minor-order"}) {
    auto schedule = ScheduleModuleWithStrategy(**module, host.registries().strategies, strategy, {});
    EXPECT_TRUE(schedule.ok()) << strategy << ": " << schedule.status();
  }
}

TEST(PluginLoaderTest, APluginThatFailsHalfwayLeavesNothingRegistered) {
  PluginHost host;
  absl::Status status = host.LoadPlugin(Broken("broken_backend_fails"));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("plugin 'broken-backend-fails': register_backends failed: the fixture's "
                        "backend cannot start"));
  // Its pass registered before the failure; it must not stay runnable.
  EXPECT_EQ(host.registries().passes.Find("broken-backend-fails-no-op"), nullptr);
  EXPECT_TRUE(host.plugins().empty());
  // The same name can then come from a plugin that loads.
  ASSERT_TRUE(host.LoadPlugin(Good("fixture_passes")).ok());
  EXPECT_EQ(host.plugins().size(), 1u);
}

TEST(PluginLoaderTest, DuplicatePassNamesBothPluginsEvenWhenThePluginIgnoresTheError) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(Good("fixture_passes")).ok());
  absl::Status status = host.LoadPlugin(Broken("broken_duplicate_pass"));
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(status.message(),
            fmt::format("{}: plugin 'broken-duplicate-pass': register_passes failed: pass "
                        "'fixture-grow-name' from plugin 'broken-duplicate-pass' is already "
                        "registered by plugin 'fixture-passes'",
                        Broken("broken_duplicate_pass").string()));
}

TEST(PluginLoaderTest, DuplicateStrategyNamesBothPlugins) {
  PluginHost host;
  ASSERT_TRUE(host.LoadPlugin(Good("fixture_c_strategies")).ok());
  absl::Status status = host.LoadPlugin(Broken("broken_duplicate_strategy"));
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(status.message(),
              HasSubstr("register_scheduler_strategies failed: scheduler strategy "
                        "'fixture-text-order' from plugin 'broken-duplicate-strategy' is already "
                        "registered by plugin 'fixture-c-strategies'"));
}

TEST(PluginLoaderTest, HostAndPluginsComputeTheSameFingerprint) {
  EXPECT_EQ(FrameworkBuildFingerprint(), HMO_BUILD_FINGERPRINT);
  const std::string fingerprint(FrameworkBuildFingerprint());
  EXPECT_THAT(fingerprint, StartsWith("hmo " HMO_FRAMEWORK_VERSION " headers " HMO_HEADERS_DIGEST "; "));
  // Abseil's types cross the boundary, so its release is part of it, and so
  // are the assertion and sanitizer settings, last.
  EXPECT_THAT(fingerprint, HasSubstr("; abseil "));
  EXPECT_THAT(fingerprint,
              ::testing::ContainsRegex("; assertions=(on|off) asan=[01] tsan=[01] msan=[01]$"));
  EXPECT_EQ(std::string(HMO_HEADERS_DIGEST).size(), 16u);
}

TEST(PluginLoaderTest, LoadAllPluginsReportsOneErrorPerBrokenFile) {
  PluginHost host;
  EXPECT_TRUE(host.LoadAllPlugins(PluginSearchPath({kGoodDir})).empty());
  EXPECT_EQ(host.plugins().size(), 4u);

  PluginHost broken_host;
  std::vector<absl::Status> errors = broken_host.LoadAllPlugins(PluginSearchPath({kBrokenDir}));
  // Every broken fixture fails except the two duplicate ones, which only
  // clash with plugins that are not loaded here.
  EXPECT_EQ(errors.size(), 14u);
  for (const absl::Status& error : errors) {
    EXPECT_THAT(std::string(error.message()), StartsWith(kBrokenDir.string()));
  }
  // Only what loaded whole is registered: the passes of the plugins that
  // failed halfway are gone.
  for (const LoadedPlugin& plugin : broken_host.plugins()) {
    for (const std::string& pass : plugin.passes) {
      EXPECT_EQ(broken_host.registries().passes.Find(pass)->plugin, plugin.name);
    }
  }
  EXPECT_EQ(broken_host.registries().passes.Find("broken-backend-fails-no-op"), nullptr);
}

}  // namespace
}  // namespace hmo
