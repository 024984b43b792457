#include "hmo/pipeline/dump_after_pass.h"

#include <fstream>

#include "fmt/format.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {
namespace {

std::string SanitizeForFileName(std::string_view name) {
  std::string result(name);
  for (char& c : result) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    if (!keep) c = '_';
  }
  return result.empty() ? std::string("module") : result;
}

}  // namespace

std::string DumpFileName(std::string_view module_name, const PassRunInfo& run) {
  return fmt::format("{}.{:04d}.after_{}.hlo", SanitizeForFileName(module_name), run.sequence,
                     run.pass_name);
}

DumpAfterPassInstrumentation::DumpAfterPassInstrumentation(std::filesystem::path directory,
                                                           const std::string& after)
    : directory_(std::move(directory)), after_(after) {}

absl::Status DumpAfterPassInstrumentation::BeforePipeline(const HloModule& /*module*/) {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) {
    return absl::PermissionDeniedError(fmt::format("cannot create dump directory {}: {}",
                                                   directory_.string(), error.message()));
  }
  return absl::OkStatus();
}

absl::Status DumpAfterPassInstrumentation::AfterPass(const PassRunInfo& run,
                                                     const HloModule& module, bool /*changed*/) {
  if (!std::regex_match(run.pass_name.begin(), run.pass_name.end(), after_)) {
    return absl::OkStatus();
  }
  const std::filesystem::path file = directory_ / DumpFileName(module.name(), run);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << module.ToString();
  if (!out.good()) {
    return absl::PermissionDeniedError(fmt::format("cannot write dump file {}", file.string()));
  }
  return absl::OkStatus();
}

}  // namespace hmo
