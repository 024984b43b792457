#ifndef HMO_BACKENDS_GPU_NCCL_NCCL_GROUP_COMMUNICATORS_H_
#define HMO_BACKENDS_GPU_NCCL_NCCL_GROUP_COMMUNICATORS_H_

// One rank's NCCL communicators for the replica groups its collectives run
// in: each group's communicator is split once from the clique's (the
// parent, whose rank r is device r) with ncclCommSplit(parent, color =
// the group's index among the collective's groups, key = the rank's
// position in its group), so a rank's NCCL rank in it is its rank in the
// group, and reused by every later collective with that group.
//
// ncclCommSplit is collective over every rank of the parent. Splitting
// lazily, when a collective first needs a group, is safe because in SPMD
// every device reaches the same collectives in the same order and each
// decides alike: a collective splits exactly when one of its groups (of
// more than one device) has no communicator yet, which depends on the
// collective's groups and the groups split before, the same on every
// device; ranks alone in their group take part with no color (no
// communicator). A single group of all devices in order is the parent.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "gpu/nccl/nccl_library.h"

namespace hmo::gpu {

class NcclGroupCommunicators {
 public:
  // `parent` joins `num_ranks` ranks, this one as `rank`; not owned.
  NcclGroupCommunicators(const NcclLibrary& nccl, nccl_abi::Comm parent, int rank, int num_ranks)
      : nccl_(nccl), parent_(parent), rank_(rank), num_ranks_(num_ranks) {}
  NcclGroupCommunicators(const NcclGroupCommunicators&) = delete;
  NcclGroupCommunicators& operator=(const NcclGroupCommunicators&) = delete;
  // Destroys the communicators it split.
  ~NcclGroupCommunicators();

  // The communicator of this rank's group among `groups` (every group of
  // one collective, each in rank order, together every rank once); null
  // when the rank is alone in its group. UNIMPLEMENTED naming `what` when a
  // split is needed and the library has no ncclCommSplit (NCCL < 2.18);
  // INTERNAL when the rank is in no group.
  absl::StatusOr<nccl_abi::Comm> For(const std::vector<std::vector<int64_t>>& groups,
                                     const std::string& what);

  // How many times ncclCommSplit was called (tests).
  int splits() const { return splits_; }

 private:
  const NcclLibrary& nccl_;
  nccl_abi::Comm parent_;
  int rank_;
  int num_ranks_;
  // Groups (of more than one rank) every member of which holds a
  // communicator for it: the same set on every rank.
  std::set<std::vector<int64_t>> split_groups_;
  // This rank's communicator per group it belongs to.
  absl::flat_hash_map<std::vector<int64_t>, nccl_abi::Comm> communicators_;
  // Every communicator split, to destroy.
  std::vector<nccl_abi::Comm> owned_;
  int splits_ = 0;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_NCCL_NCCL_GROUP_COMMUNICATORS_H_
