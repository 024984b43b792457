// WriteResultFiles (hmo/execution/module_execution.h).

#include "fmt/format.h"
#include "hmo/execution/module_execution.h"
#include "hmo/execution/npy.h"

namespace hmo {
namespace {

absl::Status WriteLeaves(const std::filesystem::path& directory, const Literal& literal,
                         ShapeIndex& index, std::vector<std::filesystem::path>& written) {
  if (literal.shape().IsTuple()) {
    for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
      index.push_back(static_cast<int64_t>(i));
      absl::Status status = WriteLeaves(directory, literal.tuple_elements()[i], index, written);
      index.pop_back();
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (!literal.shape().IsArray()) return absl::OkStatus();  // a token has no values
  const std::filesystem::path path =
      directory / (index.empty() ? std::string("result.npy")
                                 : fmt::format("result.{}.npy", fmt::join(index, ".")));
  if (absl::Status status = WriteNpyFile(path.string(), literal); !status.ok()) return status;
  written.push_back(path);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::filesystem::path>> WriteResultFiles(
    const std::filesystem::path& directory, const Literal& result) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (!std::filesystem::is_directory(directory)) {
    return absl::PermissionDeniedError(
        fmt::format("cannot create the results directory {}: {}", directory.string(),
                    error ? error.message() : "not a directory"));
  }
  std::vector<std::filesystem::path> written;
  ShapeIndex index;
  if (absl::Status status = WriteLeaves(directory, result, index, written); !status.ok()) {
    return status;
  }
  return written;
}

}  // namespace hmo
