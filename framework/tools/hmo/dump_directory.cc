#include "dump_directory.h"

#include <algorithm>
#include <system_error>
#include <tuple>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hmo::cli {
namespace {

constexpr std::string_view kBeforeSuffix = ".before_optimizations.txt";
constexpr std::string_view kAfterSuffix = "_after_optimizations.txt";

std::string_view StageSuffix(DumpStage stage) {
  return stage == DumpStage::kBeforeOptimizations ? kBeforeSuffix : kAfterSuffix;
}

// The program of a file name "module_<NNNN>.<program>.<stage suffix>" with
// `suffix` its end, and its module number; false when it is not one.
bool ParseDumpName(std::string_view name, std::string_view suffix, int64_t& number,
                   std::string& program) {
  constexpr std::string_view kPrefix = "module_";
  if (!name.starts_with(kPrefix) || !name.ends_with(suffix)) return false;
  std::string_view rest = name.substr(kPrefix.size(), name.size() - kPrefix.size() - suffix.size());
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos ||
      !absl::SimpleAtoi(std::string(rest.substr(0, dot)), &number)) {
    return false;
  }
  rest.remove_prefix(dot + 1);
  if (suffix == kAfterSuffix) {
    // "<program>.<platform>": the platform is the last dotted part.
    const size_t platform = rest.rfind('.');
    if (platform == std::string_view::npos) return false;
    rest = rest.substr(0, platform);
  }
  // A per-pass dump ("<program>.0001.<pass>.after_<pass>") is not a stage.
  if (rest.empty() || rest.find('.') != std::string_view::npos) return false;
  program = std::string(rest);
  return true;
}

}  // namespace

absl::StatusOr<DumpStage> ParseDumpStage(std::string_view name) {
  if (name == "before") return DumpStage::kBeforeOptimizations;
  if (name == "after") return DumpStage::kAfterOptimizations;
  return absl::InvalidArgumentError(
      absl::StrCat("--stage takes before or after, got '", std::string(name), "'"));
}

std::string DumpModuleFileName(DumpStage stage) {
  return absl::StrCat("module_<N>.<program>", std::string(StageSuffix(stage)));
}

absl::StatusOr<std::vector<DumpModule>> FindDumpModules(const std::filesystem::path& directory,
                                                        DumpStage stage) {
  const std::string_view suffix = StageSuffix(stage);
  std::vector<std::pair<int64_t, DumpModule>> found;
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
       it.increment(error)) {
    if (!it->is_regular_file(error)) continue;
    const std::string name = it->path().filename().string();
    int64_t number = 0;
    std::string program;
    if (ParseDumpName(name, suffix, number, program)) {
      found.push_back({number, DumpModule{it->path(), std::move(program)}});
    }
  }
  if (error) {
    return absl::NotFoundError(
        absl::StrCat(directory.string(), ": cannot read the directory: ", error.message()));
  }
  if (found.empty()) {
    return absl::NotFoundError(absl::StrCat(
        directory.string(), ": no ", DumpModuleFileName(stage),
        " file: not an --xla_dump_to directory of HLO text dumps at this stage (--stage)"));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.path) < std::tie(b.first, b.second.path);
  });
  std::vector<DumpModule> modules;
  for (auto& [number, module] : found) modules.push_back(std::move(module));
  return modules;
}

bool IsDumpDirectory(const std::filesystem::path& directory) {
  return FindDumpModules(directory, DumpStage::kAfterOptimizations).ok() ||
         FindDumpModules(directory, DumpStage::kBeforeOptimizations).ok();
}

}  // namespace hmo::cli
