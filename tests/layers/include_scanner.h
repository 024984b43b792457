#ifndef HMO_TESTS_LAYERS_INCLUDE_SCANNER_H_
#define HMO_TESTS_LAYERS_INCLUDE_SCANNER_H_

// The include half of the layering check (docs/ARCHITECTURE.md, Layers): reads
// every `#include` of the C++ files under a source root and returns the ones
// that break the rules of kIncludeRules, so that the real tree and a planted
// one are checked by the same code.

#include <filesystem>
#include <string>
#include <vector>

namespace hmo::layering {

// Bottom to top: a framework area includes its own files and those of the
// areas listed before it.
extern const std::vector<std::string> kFrameworkAreas;

// What a unit outside the framework's areas may include besides its own
// files. A unit is "framework/<area>", "framework/tools", "plugins/<name>",
// "backends/<name>", "bench" or "tests"; "plugins/*" is the rule of every
// plugin. "framework" stands for the framework's public headers (hmo/<area>/,
// framework/include: the SDK), "framework-internal" for its internal headers
// (hmo/<area>/ too, but in framework/internal: not installed, for the
// framework's own areas and its tests), "backends/<name>" for that backend
// library's public headers (hmo/codegen/, hmo/collectives/, hmo/gpu/).
struct IncludeRule {
  std::string unit;
  std::vector<std::string> may_include;
};
extern const std::vector<IncludeRule> kIncludeRules;

struct IncludeViolation {
  std::string file;    // relative to the root, e.g. "framework/src/ir/a.cc"
  std::string header;  // as written in the #include
  std::string from;    // the including file's unit
  std::string to;      // the included file's unit
  std::string why;

  // "file -> header", the form the known-debt lists use.
  std::string Edge() const { return file + " -> " + header; }
};

// Scans framework/{include,internal,src,tools}, plugins/, backends/, bench/
// and tests/ under `root` (those that exist). A quoted include is resolved as
// the compiler would for the trees' include directories: "hmo/<x>/..." is the
// internal header of <x> when framework/internal has it, else its public
// header; anything else is looked up beside the including file,
// then at the root of its plugin (plugins/<name>/) or of backends/ (where
// backends include "cpu/...", "gpu/..."), and what resolves nowhere is a
// third-party header and not checked.
struct IncludeScan {
  int files = 0;  // how many files were read (a guard against scanning nothing)
  std::vector<IncludeViolation> violations;
};
IncludeScan FindIncludeViolations(const std::filesystem::path& root);

}  // namespace hmo::layering

#endif  // HMO_TESTS_LAYERS_INCLUDE_SCANNER_H_
