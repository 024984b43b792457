// The framework's areas form a directed graph (docs/ARCHITECTURE.md): an area
// includes only headers of the areas below it. This test reads every
// `#include "hmo/<area>/..."` in framework/include and framework/src and
// fails on an edge that points up, except the ones listed in
// kKnownUpwardIncludes, which are to be removed and must not grow.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

// Bottom to top. An area may include its own headers and those of areas
// listed before it.
const std::vector<std::string> kLayers = {
    "base",       "ir",     "text",     "verifier", "eval",       "analysis", "pass",
    "transforms", "passes", "pipeline", "plugin",   "scheduling", "execution"};

// "file -> included header" pairs that still point up. Each is a debt; the
// list is empty and must stay so.
const std::set<std::string> kKnownUpwardIncludes = {};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct UpwardInclude {
  std::string edge;  // "file -> header"
  std::string from_area;
  std::string to_area;
};

std::vector<UpwardInclude> FindUpwardIncludes() {
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < kLayers.size(); ++i) rank[kLayers[i]] = i;
  const fs::path framework = fs::path(HMO_SOURCE_DIR) / "framework";
  const std::regex include_line(R"(#include\s+"(hmo/([a-z_]+)/[^"]+)\")");
  std::vector<UpwardInclude> found;
  for (const char* root : {"include/hmo", "src"}) {
    for (const auto& entry : fs::recursive_directory_iterator(framework / root)) {
      const std::string extension = entry.path().extension().string();
      if (!entry.is_regular_file() || (extension != ".h" && extension != ".cc")) continue;
      const fs::path relative = fs::relative(entry.path(), framework / root);
      const std::string area = relative.begin()->string();
      EXPECT_TRUE(rank.contains(area)) << entry.path() << ": area '" << area
                                       << "' is not in kLayers (add it where it belongs)";
      if (!rank.contains(area)) continue;
      const std::string text = ReadFile(entry.path());
      for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
        const std::string header = (*it)[1];
        const std::string to = (*it)[2];
        EXPECT_TRUE(rank.contains(to)) << entry.path() << " includes " << header
                                       << " of unknown area '" << to << "'";
        if (!rank.contains(to) || rank[to] <= rank[area]) continue;
        found.push_back({fs::relative(entry.path(), framework).string() + " -> " + header, area, to});
      }
    }
  }
  return found;
}

TEST(LayeringTest, NoAreaIncludesAnAreaAboveIt) {
  std::set<std::string> seen;
  for (const UpwardInclude& include : FindUpwardIncludes()) {
    seen.insert(include.edge);
    EXPECT_TRUE(kKnownUpwardIncludes.contains(include.edge))
        << include.edge << ": " << include.from_area << " may not include " << include.to_area
        << " (docs/ARCHITECTURE.md, Layers)";
  }
  // A debt that was paid is taken off the list, so the list stays true.
  for (const std::string& known : kKnownUpwardIncludes) {
    EXPECT_TRUE(seen.contains(known)) << known << " no longer exists: remove it from the list";
  }
}

// Backends share code only through backends/codegen (hmo/codegen/...): a
// backend includes its own headers ("cpu/...", "gpu/...") and never
// another's, and the shared code includes no backend.
TEST(LayeringTest, BackendsIncludeNoOtherBackend) {
  const fs::path backends = fs::path(HMO_SOURCE_DIR) / "backends";
  const std::regex include_line(R"(#include\s+"(cpu|gpu)/[^"]+\")");
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(backends)) {
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".h" && extension != ".cc")) continue;
    ++files;
    const std::string owner = fs::relative(entry.path(), backends).begin()->string();
    const std::string text = ReadFile(entry.path());
    for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
      EXPECT_EQ((*it)[1].str(), owner)
          << entry.path() << " includes " << (*it)[0] << ": backends share code through "
          << "backends/codegen (hmo/codegen/...) only (docs/ARCHITECTURE.md)";
    }
  }
  EXPECT_GT(files, 100);
}

}  // namespace
}  // namespace hmo
