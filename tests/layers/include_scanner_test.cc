// The include scanner on planted trees: each kind of violation it is there to
// catch, written into a temporary tree, is found with its file and edge; a
// tree that keeps the rules gives none.

#include "layers/include_scanner.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "gtest/gtest.h"

namespace hmo::layering {
namespace {

namespace fs = std::filesystem;

class PlantedTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::path(::testing::TempDir()) /
        (std::string("layers_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes `file` (relative to the root) with one #include per header.
  void Plant(const std::string& file, const std::vector<std::string>& includes) {
    fs::create_directories((root_ / file).parent_path());
    std::ofstream out(root_ / file);
    for (const std::string& include : includes) out << "#include " << include << "\n";
  }

  // (file, header, from, to) of each violation found.
  std::set<std::tuple<std::string, std::string, std::string, std::string>> Violations() {
    std::set<std::tuple<std::string, std::string, std::string, std::string>> found;
    for (const IncludeViolation& v : FindIncludeViolations(root_).violations) {
      EXPECT_FALSE(v.why.empty()) << v.Edge();
      found.insert({v.file, v.header, v.from, v.to});
    }
    return found;
  }

  // The headers the planted includes point at.
  void PlantTargets() {
    for (const char* header :
         {"framework/include/hmo/ir/shape.h", "framework/include/hmo/pipeline/x.h",
          "framework/src/ir/str_cat.h", "framework/src/pipeline/y.h", "plugins/two/q.h",
          "backends/cpu/compiler/k.h", "backends/codegen/include/hmo/codegen/e.h",
          "tests/fixtures/f.h", "framework/internal/hmo/analysis/h.h"}) {
      Plant(header, {});
    }
  }

  fs::path root_;
};

TEST_F(PlantedTree, FindsEveryViolationWithItsFileAndEdge) {
  PlantTargets();
  Plant("framework/src/ir/a.cc", {"\"hmo/pipeline/x.h\""});
  Plant("framework/src/text/b.cc", {"\"../pipeline/y.h\""});
  Plant("framework/src/ir/c.cc", {"\"../../../plugins/two/q.h\"", "<hmo/codegen/e.h>"});
  Plant("framework/src/widgets/w.cc", {"\"hmo/ir/shape.h\""});
  Plant("plugins/one/p.cc",
        {"\"../two/q.h\"", "\"../../framework/src/ir/str_cat.h\"", "\"hmo/analysis/h.h\""});
  Plant("backends/gpu/g.cc", {"\"cpu/compiler/k.h\""});
  Plant("backends/codegen/emitters/e.cc", {"\"cpu/compiler/k.h\""});
  Plant("bench/s.cc", {"\"../plugins/two/q.h\"", "\"hmo/analysis/h.h\""});
  Plant("framework/tools/hmo/main.cc", {"\"hmo/analysis/h.h\""});
  Plant("framework/src/ir/d.cc", {"\"hmo/analysis/h.h\""});
  Plant("tests/t_test.cc",
        {"\"../framework/src/ir/str_cat.h\"", "\"../backends/cpu/compiler/k.h\""});

  EXPECT_EQ(
      Violations(),
      (std::set<std::tuple<std::string, std::string, std::string, std::string>>{
          {"framework/src/ir/a.cc", "hmo/pipeline/x.h", "framework/ir", "framework/pipeline"},
          {"framework/src/text/b.cc", "../pipeline/y.h", "framework/text", "framework/pipeline"},
          {"framework/src/ir/c.cc", "../../../plugins/two/q.h", "framework/ir", "plugins/two"},
          {"framework/src/ir/c.cc", "hmo/codegen/e.h", "framework/ir", "backends/codegen"},
          {"framework/src/widgets/w.cc", "hmo/ir/shape.h", "framework/widgets", "framework/ir"},
          {"plugins/one/p.cc", "../two/q.h", "plugins/one", "plugins/two"},
          {"plugins/one/p.cc", "../../framework/src/ir/str_cat.h", "plugins/one", "framework/ir"},
          {"backends/gpu/g.cc", "cpu/compiler/k.h", "backends/gpu", "backends/cpu"},
          {"backends/codegen/emitters/e.cc", "cpu/compiler/k.h", "backends/codegen",
           "backends/cpu"},
          {"bench/s.cc", "../plugins/two/q.h", "bench", "plugins/two"},
          // An internal header (framework/internal) is the framework's and
          // its tests' only, and keeps the order of the areas.
          {"plugins/one/p.cc", "hmo/analysis/h.h", "plugins/one", "framework/analysis"},
          {"bench/s.cc", "hmo/analysis/h.h", "bench", "framework/analysis"},
          {"framework/tools/hmo/main.cc", "hmo/analysis/h.h", "framework/tools",
           "framework/analysis"},
          {"framework/src/ir/d.cc", "hmo/analysis/h.h", "framework/ir", "framework/analysis"},
          {"tests/t_test.cc", "../framework/src/ir/str_cat.h", "tests", "framework/ir"},
          {"tests/t_test.cc", "../backends/cpu/compiler/k.h", "tests", "backends/cpu"},
      }));
}

TEST_F(PlantedTree, AcceptsATreeThatKeepsTheRules) {
  PlantTargets();
  Plant("framework/src/text/b.cc", {"\"../ir/str_cat.h\"", "\"hmo/ir/shape.h\"", "<vector>"});
  Plant("framework/src/pipeline/p.cc",
        {"\"y.h\"", "\"hmo/ir/shape.h\"", "\"absl/status/status.h\"", "\"hmo/analysis/h.h\""});
  Plant("framework/tools/hmo/main.cc", {"\"hmo/pipeline/x.h\""});
  Plant("plugins/two/r.cc", {"\"q.h\"", "\"hmo/pipeline/x.h\""});
  Plant("backends/cpu/compiler/k.cc", {"\"cpu/compiler/k.h\"", "\"hmo/codegen/e.h\""});
  Plant("backends/codegen/emitters/e.cc", {"\"hmo/codegen/e.h\"", "\"hmo/ir/shape.h\""});
  Plant("bench/s.cc", {"\"hmo/pipeline/x.h\"", "\"hmo/codegen/e.h\""});
  Plant("tests/t_test.cc", {"\"hmo/pipeline/x.h\"", "\"fixtures/f.h\"", "\"hmo/analysis/h.h\""});

  const IncludeScan scan = FindIncludeViolations(root_);
  EXPECT_EQ(scan.files, 17);
  for (const IncludeViolation& v : scan.violations) ADD_FAILURE() << v.Edge() << ": " << v.why;
}

}  // namespace
}  // namespace hmo::layering
