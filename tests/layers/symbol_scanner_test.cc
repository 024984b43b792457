// The symbol scanner on planted objects: two tiny sources compiled into the
// folders of two areas, one calling a function the other defines. A call up
// is found with its object and symbol; a call down is not.

#include "layers/symbol_scanner.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace hmo::layering {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kAreas = {"base", "ir", "pass"};

class PlantedObjects : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::path(::testing::TempDir()) /
        (std::string("symbols_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes sources/<area>/<name>.cc and compiles it into objects/<area>/<name>.cc.o.
  void Compile(const std::string& area, const std::string& name, const std::string& source) {
    const fs::path source_file = root_ / "sources" / area / (name + ".cc");
    fs::create_directories(source_file.parent_path());
    std::ofstream(source_file) << source;
    fs::create_directories(root_ / "objects" / area);
    const std::string command = std::string("'") + HMO_CXX + "' -c -o '" +
                                (root_ / "objects" / area / (name + ".cc.o")).string() + "' '" +
                                source_file.string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  fs::path root_;
};

TEST_F(PlantedObjects, FindsACallIntoAnAreaAbove) {
  Compile("pass", "upper", "namespace hmo { int Upper(int x) { return x + 1; } }\n");
  Compile("base", "lower",
          "namespace hmo { int Upper(int x); int Lower(int x) { return Upper(x) * 2; } }\n");
  const absl::StatusOr<SymbolScan> scan =
      FindUpwardReferences(root_ / "objects", root_ / "sources", HMO_NM, kAreas);
  ASSERT_TRUE(scan.ok()) << scan.status();
  EXPECT_EQ(scan->objects, 2);
  ASSERT_EQ(scan->references.size(), 1u);
  EXPECT_EQ(scan->references[0].Edge(), "base/lower.cc.o -> hmo::Upper(int)");
  EXPECT_EQ(scan->references[0].from, "base");
  EXPECT_EQ(scan->references[0].to, "pass");
}

TEST_F(PlantedObjects, AcceptsCallsDownAndAcrossOneArea) {
  Compile("base", "lower", "namespace hmo { int Lower(int x) { return x + 1; } }\n");
  Compile("pass", "upper",
          "namespace hmo { int Lower(int x); int Sibling(int x) { return x; }\n"
          "int Upper(int x) { return Lower(x) * 2; } }\n");
  Compile("pass", "sibling",
          "namespace hmo { int Sibling(int x); int Other(int x) { return Sibling(x); } }\n");
  const absl::StatusOr<SymbolScan> scan =
      FindUpwardReferences(root_ / "objects", root_ / "sources", HMO_NM, kAreas);
  ASSERT_TRUE(scan.ok()) << scan.status();
  EXPECT_EQ(scan->objects, 3);
  EXPECT_TRUE(scan->references.empty()) << scan->references[0].Edge();
}

TEST_F(PlantedObjects, SkipsTheObjectOfADeletedSource) {
  Compile("pass", "upper", "namespace hmo { int Upper(int x) { return x + 1; } }\n");
  Compile("base", "lower",
          "namespace hmo { int Upper(int x); int Lower(int x) { return Upper(x) * 2; } }\n");
  fs::remove(root_ / "sources" / "base" / "lower.cc");
  const absl::StatusOr<SymbolScan> scan =
      FindUpwardReferences(root_ / "objects", root_ / "sources", HMO_NM, kAreas);
  ASSERT_TRUE(scan.ok()) << scan.status();
  EXPECT_EQ(scan->objects, 1);
  EXPECT_TRUE(scan->references.empty());
}

TEST_F(PlantedObjects, RefusesAnObjectOutsideTheAreas) {
  Compile("widgets", "w", "int W() { return 0; }\n");
  const absl::StatusOr<SymbolScan> scan =
      FindUpwardReferences(root_ / "objects", root_ / "sources", HMO_NM, kAreas);
  ASSERT_FALSE(scan.ok());
  EXPECT_NE(scan.status().message().find("widgets/w.cc.o"), std::string::npos) << scan.status();
}

TEST_F(PlantedObjects, SaysSoWhenNmIsMissing) {
  Compile("base", "lower", "int Lower() { return 0; }\n");
  const absl::StatusOr<SymbolScan> scan = FindUpwardReferences(root_ / "objects", root_ / "sources",
                                                               (root_ / "no-nm").string(), kAreas);
  ASSERT_FALSE(scan.ok());
  EXPECT_NE(scan.status().message().find("nm not found"), std::string::npos) << scan.status();
}

}  // namespace
}  // namespace hmo::layering
