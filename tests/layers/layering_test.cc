// The layers of docs/ARCHITECTURE.md, checked on the real tree: every include
// of framework/, plugins/, backends/, bench/ and tests/ against kIncludeRules
// (include_scanner.h), and every symbol an area's object file of
// libhmo_framework references against the areas that define it
// (symbol_scanner.h). What still breaks a rule is listed as a debt below: a
// debt is to be paid, the lists must not grow, and a paid one is taken off.

#include <filesystem>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "layers/include_scanner.h"
#include "layers/symbol_scanner.h"

namespace hmo::layering {
namespace {

namespace fs = std::filesystem;

// "file -> header" includes that break a rule.
const std::set<std::string> kKnownIncludeDebts = {};

// "object -> symbol" references of an area to one above it.
const std::set<std::string> kKnownSymbolDebts = {};

template <typename Found>
void ExpectOnlyKnown(const std::vector<Found>& found, const std::set<std::string>& known,
                     const std::string& list) {
  std::set<std::string> seen;
  for (const Found& edge : found) seen.insert(edge.Edge());
  for (const std::string& debt : known) {
    EXPECT_TRUE(seen.contains(debt)) << debt << " no longer exists: take it off " << list;
  }
}

TEST(LayeringTest, EveryIncludeFollowsTheRules) {
  const IncludeScan scan = FindIncludeViolations(HMO_SOURCE_DIR);
  EXPECT_GT(scan.files, 700);
  for (const IncludeViolation& violation : scan.violations) {
    EXPECT_TRUE(kKnownIncludeDebts.contains(violation.Edge()))
        << violation.Edge() << ": " << violation.from << " -> " << violation.to << ": "
        << violation.why << " (docs/ARCHITECTURE.md, Layers)";
  }
  ExpectOnlyKnown(scan.violations, kKnownIncludeDebts, "kKnownIncludeDebts");
}

TEST(LayeringTest, NoAreaCallsAnAreaAboveIt) {
  const absl::StatusOr<SymbolScan> scan =
      FindUpwardReferences(HMO_FRAMEWORK_OBJECT_DIR, fs::path(HMO_SOURCE_DIR) / "framework/src",
                           HMO_NM, kFrameworkAreas);
  ASSERT_TRUE(scan.ok()) << scan.status();
  EXPECT_GT(scan->objects, 100);
  for (const UpwardReference& reference : scan->references) {
    EXPECT_TRUE(kKnownSymbolDebts.contains(reference.Edge()))
        << reference.Edge() << ": " << reference.from << " calls " << reference.to
        << ", an area above it (docs/ARCHITECTURE.md, Layers)";
  }
  ExpectOnlyKnown(scan->references, kKnownSymbolDebts, "kKnownSymbolDebts");
}

}  // namespace
}  // namespace hmo::layering
