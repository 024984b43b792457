#include "layers/symbol_scanner.h"

#include <cxxabi.h>
#include <stdio.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hmo::layering {

namespace fs = std::filesystem;

namespace {

std::string Demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && demangled != nullptr ? std::string(demangled.get()) : symbol;
}

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

// nm's POSIX output (-P) for `objects`, one "file: symbol type [value size]"
// line per symbol (-A).
absl::StatusOr<std::string> RunNm(const std::string& nm, const std::vector<fs::path>& objects) {
  if (nm.empty() || !fs::is_regular_file(nm)) {
    return absl::FailedPreconditionError(
        absl::StrCat("nm not found at '", nm,
                     "': the link-level layering check reads object files with binutils' nm "
                     "(CMAKE_NM; install binutils and reconfigure)"));
  }
  std::string command = Quoted(nm) + " -P -A";
  for (const fs::path& object : objects) {
    if (object.string().find('\'') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("object path with a quote: ", object.string()));
    }
    command += " " + Quoted(object.string());
  }
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError(absl::StrCat("cannot run ", nm));
  std::string output;
  char buffer[1 << 16];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  const int status = pclose(pipe);
  if (status != 0) {
    return absl::InternalError(
        absl::StrCat(nm, " failed (status ", status, "): ", output.substr(0, 2000)));
  }
  return output;
}

// A global definition: nm's upper-case types other than U, and 'u' (unique
// global). Lower-case types are local to their object.
bool IsGlobalDefinition(char type) {
  return type == 'u' || (type >= 'A' && type <= 'Z' && type != 'U');
}

bool IsReference(char type) { return type == 'U' || type == 'w' || type == 'v'; }

}  // namespace

absl::StatusOr<SymbolScan> FindUpwardReferences(const fs::path& objects_root,
                                                const fs::path& sources_root, const std::string& nm,
                                                const std::vector<std::string>& areas) {
  if (!fs::is_directory(objects_root)) {
    return absl::NotFoundError(
        absl::StrCat("no object folder ", objects_root.string(), " (build hmo_framework first)"));
  }
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < areas.size(); ++i) rank[areas[i]] = i;
  std::vector<fs::path> objects;
  for (const auto& entry : fs::recursive_directory_iterator(objects_root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".o") continue;
    const fs::path relative = entry.path().lexically_relative(objects_root);
    fs::path source = sources_root / relative;
    source.replace_extension();  // x.cc.o -> x.cc
    // Left behind by a build of a source since moved or removed (an area
    // renamed, too): not part of the library any more.
    if (!fs::exists(source)) continue;
    if (!rank.contains(relative.begin()->string())) {
      return absl::InvalidArgumentError(
          absl::StrCat(relative.string(), ": object of an area that is not in the list of areas"));
    }
    objects.push_back(entry.path());
  }
  std::sort(objects.begin(), objects.end());
  SymbolScan scan;
  scan.objects = static_cast<int>(objects.size());
  if (objects.empty()) return scan;
  absl::StatusOr<std::string> listing = RunNm(nm, objects);
  if (!listing.ok()) return listing.status();

  // symbol -> the areas defining it; object -> the symbols it references.
  std::map<std::string, std::set<size_t>> defined_in;
  std::map<std::string, std::set<std::string>> references;
  std::istringstream lines(*listing);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    std::istringstream fields(line.substr(colon + 2));
    std::string symbol, type;
    if (!(fields >> symbol >> type) || type.size() != 1) continue;
    const std::string object = fs::path(line.substr(0, colon)).lexically_relative(objects_root);
    const std::string area = fs::path(object).begin()->string();
    if (!rank.contains(area)) continue;
    if (IsGlobalDefinition(type[0])) defined_in[symbol].insert(rank[area]);
    if (IsReference(type[0])) references[object].insert(symbol);
  }
  for (const auto& [object, symbols] : references) {
    const size_t from = rank[fs::path(object).begin()->string()];
    for (const std::string& symbol : symbols) {
      auto it = defined_in.find(symbol);
      if (it == defined_in.end()) continue;  // defined outside the framework
      const size_t lowest = *it->second.begin();
      if (lowest <= from) continue;
      scan.references.push_back({object, Demangle(symbol), areas[from], areas[lowest]});
    }
  }
  return scan;
}

}  // namespace hmo::layering
