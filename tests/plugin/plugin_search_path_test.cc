// Where plugins are looked for: --plugin-dir, HMO_PLUGIN_PATH, the
// installation; earlier directories win; names resolve to files.

#include "hmo/plugin/plugin_search_path.h"

#include <unistd.h>

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fmt/format.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PluginSearchPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fmt::format("hmo_search_{}", getpid());
    fs::remove_all(root_);
    fs::create_directories(root_ / "first");
    fs::create_directories(root_ / "second");
    for (const char* file : {"first/libb.so", "first/liba.so", "first/notes.txt",
                             "second/libb.so", "second/libc.so", "second/libhmo_my_plugin.so"}) {
      std::ofstream(root_ / file) << "x";
    }
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
};

TEST_F(PluginSearchPathTest, OrdersFlagsThenEnvironmentThenInstallation) {
  PluginSearchPath path = PluginSearchPath::Build(
      {root_ / "first", root_ / "first/"}, (":" + (root_ / "second").string() + "::/nowhere").c_str());
  ASSERT_GE(path.directories().size(), 3u);
  EXPECT_EQ(path.directories()[0], root_ / "first");
  EXPECT_EQ(path.directories()[1], root_ / "second");
  EXPECT_EQ(path.directories()[2], fs::path("/nowhere"));
  // Then the installation's directories, which exist.
  for (size_t i = 3; i < path.directories().size(); ++i) {
    EXPECT_TRUE(fs::is_directory(path.directories()[i])) << path.directories()[i];
  }
}

TEST_F(PluginSearchPathTest, ListsSharedObjectsAndEarlierDirectoriesWin) {
  PluginSearchPath path({root_ / "first", root_ / "second", root_ / "missing"});
  EXPECT_THAT(path.ListPluginFiles(),
              ElementsAre(root_ / "first/liba.so", root_ / "first/libb.so",
                          root_ / "second/libc.so", root_ / "second/libhmo_my_plugin.so"));
}

TEST_F(PluginSearchPathTest, ResolvesNamesAndPaths) {
  PluginSearchPath path({root_ / "first", root_ / "second"});
  EXPECT_EQ(*path.Resolve("b", root_), root_ / "first/libb.so");
  EXPECT_EQ(*path.Resolve("my-plugin", root_), root_ / "second/libhmo_my_plugin.so");
  EXPECT_EQ(*path.Resolve("second/libc.so", root_), root_ / "second/libc.so");
  EXPECT_EQ(*path.Resolve((root_ / "first/liba.so").string(), "/elsewhere"),
            root_ / "first/liba.so");
}

TEST_F(PluginSearchPathTest, UnresolvedReferencesSayWhatWasTried) {
  PluginSearchPath path({root_ / "first"});
  auto by_name = path.Resolve("zeta-x", root_);
  ASSERT_FALSE(by_name.ok());
  EXPECT_EQ(by_name.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(by_name.status().message(),
              HasSubstr("plugin 'zeta-x' not found (looked for libzeta-x.so, libhmo_zeta-x.so, "
                        "zeta-x.so, libzeta_x.so, libhmo_zeta_x.so, zeta_x.so in " +
                        (root_ / "first").string() + ")"));
  auto by_path = path.Resolve("nope/libz.so", root_);
  ASSERT_FALSE(by_path.ok());
  EXPECT_THAT(by_path.status().message(),
              HasSubstr("plugin file '" + (root_ / "nope/libz.so").string() + "' not found"));
}

}  // namespace
}  // namespace hmo
