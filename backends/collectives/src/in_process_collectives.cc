#include "hmo/collectives/in_process_collectives.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "collective_computation.h"
#include "fmt/format.h"

namespace hmo::collectives {

int64_t InProcessCollectives::NextOccurrence(const CollectivePlan& plan, int64_t device) {
  std::lock_guard<std::mutex> lock(mutex_);
  return occurrences_[{&plan, device}]++;
}

void InProcessCollectives::Abort(int64_t device, const absl::Status& why) {
  rendezvous_.Abort(
      fmt::format("device {} failed and will not arrive: {}", device, std::string(why.message())));
}

absl::Status InProcessCollectives::Run(const CollectivePlan& plan, int64_t device,
                                       absl::Span<const void* const> send,
                                       absl::Span<void* const> receive) {
  if (device < 0 || device >= plan.grid.device_count() || send.size() != plan.send_bytes.size() ||
      receive.size() != plan.receive_bytes.size()) {
    return absl::InternalError(fmt::format("{}: device {} passed {} send and {} receive buffers",
                                           plan.description, device, send.size(), receive.size()));
  }
  if (WriteDeviceId(plan, device, receive)) return absl::OkStatus();
  const Meeting meeting = MeetingOf(plan, device);
  const std::vector<int64_t>& members = meeting.members;
  const int rank = meeting.rank;
  const int ranks = meeting.ranks();
  const std::string key = fmt::format("{}/{}/{}", static_cast<const void*>(&plan), members.front(),
                                      NextOccurrence(plan, device));
  const RankNamer namer = [&](int r) {
    return fmt::format("device {} ({})", members[static_cast<size_t>(r)], plan.description);
  };
  absl::StatusOr<std::vector<std::vector<const void*>>> exchanged =
      rendezvous_.AllGather<std::vector<const void*>>(
          key, ranks, rank, std::vector<const void*>(send.begin(), send.end()),
          absl::Now() + timeout_, namer);
  if (!exchanged.ok()) return exchanged.status();

  ReceiveTargets targets(plan, send, receive);
  const absl::Status computed = ComputeReceive(
      plan, device, rank, ranks,
      [&](int r, size_t i) {
        return static_cast<const char*>((*exchanged)[static_cast<size_t>(r)][i]);
      },
      targets.out());
  // Arrive even after a failure, so the peers do not wait for the deadline.
  absl::StatusOr<std::vector<int>> read = read_rendezvous_.AllGather<int>(
      key + "/read", ranks, rank, rank, absl::Now() + timeout_, namer);
  if (!computed.ok()) return computed;
  if (!read.ok()) return read.status();
  targets.Finish();
  return absl::OkStatus();
}

}  // namespace hmo::collectives
