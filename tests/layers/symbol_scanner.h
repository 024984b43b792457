#ifndef HMO_TESTS_LAYERS_SYMBOL_SCANNER_H_
#define HMO_TESTS_LAYERS_SYMBOL_SCANNER_H_

// The link half of the layering check: the framework's areas are one shared
// library, so a call from an area into one above it links. This reads the
// symbols of each area's object files with nm and returns the references an
// area's object makes to symbols that only areas above it define.

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hmo::layering {

struct UpwardReference {
  std::string object;  // relative to the objects' root, e.g. "pipeline/pass_manager.cc.o"
  std::string symbol;  // demangled
  std::string from;    // the object's area
  std::string to;      // the lowest area that defines the symbol

  // "object -> symbol", the form the known-debt list uses.
  std::string Edge() const { return object + " -> " + symbol; }
};

struct SymbolScan {
  int objects = 0;  // how many object files were read
  std::vector<UpwardReference> references;
};

// Reads `objects_root`/<area>/**/<name>.cc.o for every area of `areas` (bottom
// to top) with the nm program `nm`. An object whose source
// `sources_root`/<area>/**/<name>.cc is gone is skipped: the build leaves the
// objects of deleted sources behind. An object file under a folder that is not
// an area is an error, as is an nm that cannot be run or that fails.
absl::StatusOr<SymbolScan> FindUpwardReferences(const std::filesystem::path& objects_root,
                                                const std::filesystem::path& sources_root,
                                                const std::string& nm,
                                                const std::vector<std::string>& areas);

}  // namespace hmo::layering

#endif  // HMO_TESTS_LAYERS_SYMBOL_SCANNER_H_
