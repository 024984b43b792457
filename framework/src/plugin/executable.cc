#include "hmo/plugin/executable.h"

#include "absl/status/status.h"

namespace hmo {

absl::StatusOr<std::vector<Literal>> Executable::ExecuteReplicated(
    const std::vector<std::vector<Literal>>& arguments_per_replica,
    std::vector<ExecutionProfile>* profiles) {
  if (arguments_per_replica.size() != 1) {
    return absl::UnimplementedError("this backend runs one replica, not " +
                                    std::to_string(arguments_per_replica.size()));
  }
  if (profiles != nullptr) profiles->assign(1, ExecutionProfile{});
  absl::StatusOr<Literal> result =
      Execute(arguments_per_replica[0], profiles != nullptr ? &profiles->front() : nullptr);
  if (!result.ok()) return result.status();
  std::vector<Literal> results;
  results.push_back(*std::move(result));
  return results;
}

}  // namespace hmo
