#include "layers/include_scanner.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string_view>

namespace hmo::layering {

namespace fs = std::filesystem;

const std::vector<std::string> kFrameworkAreas = {
    "base",     "ir",       "text",           "verifier", "eval",     "analysis",
    "pass",     "rewrites", "builtin_passes", "plugin",   "pipeline", "strategy_host",
    "execution"};

const std::vector<IncludeRule> kIncludeRules = {
    {"framework/tools", {"framework"}},
    {"plugins/*", {"framework"}},
    {"backends/codegen", {"framework"}},
    {"backends/collectives", {"framework"}},
    {"backends/cpu", {"framework", "backends/codegen", "backends/collectives"}},
    {"backends/gpu", {"framework", "backends/codegen", "backends/collectives"}},
    {"bench", {"framework", "backends/codegen", "backends/collectives", "backends/gpu"}},
    {"tests",
     {"framework", "framework-internal", "framework/tools", "backends/codegen",
      "backends/collectives", "backends/gpu"}},
};

namespace {

// The public header folders hmo/<x>/ of the libraries outside the framework.
const std::vector<std::pair<std::string, std::string>> kLibraryHeaders = {
    {"codegen", "backends/codegen"},
    {"collectives", "backends/collectives"},
    {"gpu", "backends/gpu"},
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string First(const fs::path& path) {
  return path.empty() ? std::string() : path.begin()->string();
}

std::string Second(const fs::path& path) {
  auto it = path.begin();
  if (it == path.end() || ++it == path.end()) return {};
  return it->string();
}

bool IsFrameworkArea(const std::string& area) {
  return std::find(kFrameworkAreas.begin(), kFrameworkAreas.end(), area) != kFrameworkAreas.end();
}

int Rank(const std::string& area) {
  return static_cast<int>(std::find(kFrameworkAreas.begin(), kFrameworkAreas.end(), area) -
                          kFrameworkAreas.begin());
}

// A file (relative to the root) and the unit it belongs to.
struct Located {
  std::string unit;
  bool is_public = false;  // a library's public header (framework/include, <backend>/include)
  bool is_internal = false;  // a framework header outside the SDK (framework/internal)
};

// The unit of a file relative to the root, or nothing for files outside the
// checked trees. The framework's areas: framework/include/hmo/<area>/...,
// framework/internal/hmo/<area>/... and framework/src/<area>/...; a file
// directly under include/hmo, internal/hmo or src has the area "" (no area,
// reported).
std::optional<Located> Locate(const fs::path& relative) {
  const std::string top = First(relative);
  const fs::path rest = relative.lexically_relative(top);
  if (top == "framework") {
    const std::string folder = First(rest);
    const fs::path inner = rest.lexically_relative(folder);
    if ((folder == "include" || folder == "internal") && First(inner) == "hmo") {
      const fs::path area_path = inner.lexically_relative("hmo");
      const std::string area =
          std::distance(area_path.begin(), area_path.end()) > 1 ? First(area_path) : std::string();
      return Located{"framework/" + area, folder == "include", folder == "internal"};
    }
    if (folder == "src") {
      const std::string area =
          std::distance(inner.begin(), inner.end()) > 1 ? First(inner) : std::string();
      return Located{"framework/" + area, false};
    }
    if (folder == "tools") return Located{"framework/tools", false};
    return std::nullopt;
  }
  if (top == "plugins" || top == "backends") {
    if (std::distance(rest.begin(), rest.end()) < 2) return std::nullopt;
    return Located{top + "/" + First(rest), top == "backends" && Second(rest) == "include"};
  }
  if (top == "bench" || top == "tests") return Located{top, false};
  return std::nullopt;
}

// The unit a "hmo/<x>/..." header belongs to: a framework area's internal
// header when framework/internal under `root` has it.
Located HmoHeaderUnit(const fs::path& root, const std::string& header) {
  const std::string x = Second(fs::path(header));
  for (const auto& [folder, unit] : kLibraryHeaders) {
    if (x == folder) return {unit, true};
  }
  if (fs::is_regular_file(root / "framework/internal" / header)) {
    return {"framework/" + x, false, true};
  }
  return {"framework/" + x, true};
}

// Where `header`, included from `file`, is found: beside the file, then at the
// include directory of its tree. Nothing: a third-party or generated header.
std::optional<fs::path> Resolve(const fs::path& root, const fs::path& file,
                                const std::string& header) {
  std::vector<fs::path> candidates = {file.parent_path() / header};
  const std::string top = First(file);
  if (top == "plugins") candidates.push_back(fs::path("plugins") / Second(file) / header);
  if (top == "backends") candidates.push_back(fs::path("backends") / header);
  if (top == "tests") candidates.push_back(fs::path("tests") / header);
  for (const fs::path& candidate : candidates) {
    const fs::path normal = candidate.lexically_normal();
    if (First(normal) == "..") continue;  // outside the root
    if (fs::is_regular_file(root / normal)) return normal;
  }
  return std::nullopt;
}

const IncludeRule* RuleOf(const std::string& unit) {
  for (const IncludeRule& rule : kIncludeRules) {
    if (rule.unit == unit) return &rule;
    if (rule.unit.ends_with("/*") &&
        unit.starts_with(std::string_view(rule.unit).substr(0, rule.unit.size() - 1))) {
      return &rule;
    }
  }
  return nullptr;
}

// Why `from` may not include `to`; empty when it may.
std::string Check(const std::string& from, const Located& to) {
  if (from == to.unit) return {};
  const bool from_area = from.starts_with("framework/") && from != "framework/tools";
  const bool to_area = to.unit.starts_with("framework/") && to.unit != "framework/tools";
  if (from_area) {
    const std::string area = from.substr(std::string_view("framework/").size());
    if (!IsFrameworkArea(area)) return "'" + area + "' is not a framework area (kFrameworkAreas)";
    if (!to_area) return "the framework includes no plugin, backend, tool, bench or test file";
    const std::string target = to.unit.substr(std::string_view("framework/").size());
    if (!IsFrameworkArea(target)) return "'" + target + "' is not a framework area";
    if (Rank(target) > Rank(area)) return "an area includes only the areas below it";
    return {};
  }
  const IncludeRule* rule = RuleOf(from);
  if (rule == nullptr) return "no rule for " + from + " (kIncludeRules)";
  for (const std::string& allowed : rule->may_include) {
    if (allowed == "framework-internal" && to_area && to.is_internal) return {};
    if (allowed == "framework" && to_area) {
      if (to.is_public) return {};
      if (to.is_internal) continue;  // unless "framework-internal" allows it
      return "the framework is reached through its public headers (hmo/...) only";
    }
    if (allowed == to.unit) {
      if (to.is_public || allowed == "framework/tools") return {};
      return to.unit + " is reached through its public headers (hmo/...) only";
    }
  }
  if (to.is_internal) {
    return "framework/internal is the framework's own (and its tests'): not part of the SDK";
  }
  return from + " may not include " + to.unit;
}

}  // namespace

IncludeScan FindIncludeViolations(const fs::path& root) {
  const std::regex include_line(R"re(^[ \t]*#[ \t]*include[ \t]*(["<])([^">]+)[">])re",
                                std::regex::multiline);
  IncludeScan scan;
  for (const char* tree : {"framework", "plugins", "backends", "bench", "tests"}) {
    if (!fs::is_directory(root / tree)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(root / tree)) {
      const std::string extension = entry.path().extension().string();
      if (!entry.is_regular_file() || (extension != ".h" && extension != ".cc")) continue;
      files.push_back(entry.path().lexically_relative(root));
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      const std::optional<Located> from = Locate(file);
      if (!from.has_value()) continue;
      ++scan.files;
      const std::string text = ReadFile(root / file);
      for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
        const std::string header = (*it)[2];
        std::optional<Located> to;
        if (header.starts_with("hmo/")) {
          to = HmoHeaderUnit(root, header);
        } else if ((*it)[1] == "\"") {
          if (std::optional<fs::path> resolved = Resolve(root, file, header))
            to = Locate(*resolved);
        }
        if (!to.has_value()) continue;
        std::string why = Check(from->unit, *to);
        if (!why.empty()) {
          scan.violations.push_back({file.string(), header, from->unit, to->unit, std::move(why)});
        }
      }
    }
  }
  return scan;
}

}  // namespace hmo::layering
