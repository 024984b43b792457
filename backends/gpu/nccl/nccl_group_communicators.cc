#include "gpu/nccl/nccl_group_communicators.h"

#include <algorithm>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"

namespace hmo::gpu {

NcclGroupCommunicators::~NcclGroupCommunicators() {
  for (nccl_abi::Comm comm : owned_) {
    if (comm != nullptr && nccl_.functions().CommDestroy != nullptr)
      nccl_.functions().CommDestroy(comm);
  }
}

absl::StatusOr<nccl_abi::Comm> NcclGroupCommunicators::For(
    const std::vector<std::vector<int64_t>>& groups, const std::string& what) {
  int mine = -1;
  int position = -1;
  for (size_t g = 0; g < groups.size() && mine < 0; ++g) {
    const auto it = std::find(groups[g].begin(), groups[g].end(), rank_);
    if (it != groups[g].end()) {
      mine = static_cast<int>(g);
      position = static_cast<int>(it - groups[g].begin());
    }
  }
  if (mine < 0)
    return absl::InternalError(fmt::format("{}: device {} is in none of its groups", what, rank_));
  const std::vector<int64_t>& group = groups[static_cast<size_t>(mine)];

  if (groups.size() == 1 && static_cast<int>(group.size()) == num_ranks_) {
    bool in_order = true;
    for (int r = 0; r < num_ranks_; ++r) in_order &= group[static_cast<size_t>(r)] == r;
    if (in_order) return parent_;
  }
  const bool needs_split = std::any_of(
      groups.begin(), groups.end(),
      [&](const std::vector<int64_t>& g) { return g.size() > 1 && !split_groups_.contains(g); });
  if (needs_split) {
    if (nccl_.functions().CommSplit == nullptr) {
      return absl::UnimplementedError(
          fmt::format("{}: replica groups other than one group of all devices need ncclCommSplit "
                      "(NCCL >= 2.18); {} has none",
                      what, nccl_.name()));
    }
    nccl_abi::Comm split = nullptr;
    const int color = group.size() > 1 ? mine : nccl_abi::kSplitNoColor;
    ++splits_;
    HMO_RETURN_IF_ERROR(nccl_.Check(
        nccl_.functions().CommSplit(parent_, color, position, &split, nullptr), "ncclCommSplit"));
    if (split != nullptr) {
      owned_.push_back(split);
      communicators_.try_emplace(group, split);
    }
    for (const std::vector<int64_t>& g : groups) {
      if (g.size() > 1) split_groups_.insert(g);
    }
  }
  if (group.size() == 1) return nullptr;
  const auto found = communicators_.find(group);
  if (found == communicators_.end()) {
    return absl::InternalError(
        fmt::format("{}: no communicator for device {}'s group", what, rank_));
  }
  return found->second;
}

}  // namespace hmo::gpu
