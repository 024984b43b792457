#include "hmo/collectives/rendezvous.h"

#include <algorithm>
#include <condition_variable>

#include "absl/strings/str_join.h"
#include "absl/time/clock.h"

namespace hmo::collectives {

struct Rendezvous::Point {
  Point(std::string key, int num_ranks)
      : key(std::move(key)), num_ranks(num_ranks), values(num_ranks), arrived(num_ranks, false) {}

  bool done() const { return result != nullptr || !failure.empty(); }

  const std::string key;
  const int num_ranks;
  std::condition_variable done_changed;  // waits use Rendezvous::mu_
  std::vector<std::any> values;
  std::vector<bool> arrived;
  int num_arrived = 0;
  // Set once the point is done: the result, or the failure. The failure is
  // kept as plain data so each rank builds its own absl::Status (no Status
  // payload is shared between threads).
  std::shared_ptr<const std::vector<std::any>> result;
  std::string failure;
  bool aborted = false;
};

void Rendezvous::Abort(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_.empty()) aborted_ = why.empty() ? std::string("aborted") : why;
  for (auto& [key, point] : points_) {
    point->failure = aborted_;
    point->aborted = true;
    point->done_changed.notify_all();
  }
  points_.clear();
}

size_t Rendezvous::num_pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return points_.size();
}

absl::StatusOr<std::shared_ptr<const std::vector<std::any>>> Rendezvous::ArriveAndWait(
    absl::string_view key, int num_ranks, int rank, std::any value, absl::Time deadline,
    const RankNamer& rank_namer) {
  auto name = [&](int r) { return rank_namer ? rank_namer(r) : absl::StrCat("rank ", r); };
  if (num_ranks <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("rendezvous '", key, "': num_ranks must be positive, got ", num_ranks));
  }
  if (rank < 0 || rank >= num_ranks) {
    return absl::InvalidArgumentError(absl::StrCat("rendezvous '", key, "': rank ", rank,
                                                   " is out of range [0, ", num_ranks, ")"));
  }

  const absl::Time arrived_at = absl::Now();
  std::unique_lock<std::mutex> lock(mu_);
  if (!aborted_.empty()) return absl::AbortedError(aborted_);
  std::shared_ptr<Point>& slot = points_[key];
  if (slot == nullptr) slot = std::make_shared<Point>(std::string(key), num_ranks);
  std::shared_ptr<Point> point = slot;
  if (point->num_ranks != num_ranks) {
    return absl::InvalidArgumentError(absl::StrCat("rendezvous '", key, "': ", name(rank),
                                                   " expects ", num_ranks,
                                                   " ranks but others expect ", point->num_ranks));
  }
  if (point->arrived[rank]) {
    return absl::InvalidArgumentError(
        absl::StrCat("rendezvous '", key, "': ", name(rank), " arrived twice"));
  }
  point->values[rank] = std::move(value);
  point->arrived[rank] = true;
  if (++point->num_arrived == num_ranks) {
    point->result = std::make_shared<const std::vector<std::any>>(std::move(point->values));
    points_.erase(point->key);
    point->done_changed.notify_all();
    return point->result;
  }

  // Wait in bounded steps (a far or infinite deadline must not overflow the
  // clock arithmetic of the standard library).
  bool timed_out = false;
  while (!point->done()) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      timed_out = true;
      break;
    }
    point->done_changed.wait_for(lock, absl::ToChronoNanoseconds(std::min(left, absl::Hours(1))));
  }
  if (timed_out) {
    // This rank's deadline passed first: fail the round for everyone waiting.
    std::vector<std::string> missing;
    for (int r = 0; r < num_ranks; ++r) {
      if (!point->arrived[r]) missing.push_back(name(r));
    }
    point->failure =
        absl::StrCat("rendezvous '", key, "' timed out: ", point->num_arrived, " of ", num_ranks,
                     " ranks arrived; missing: [", absl::StrJoin(missing, ", "), "]; ", name(rank),
                     " gave up after ", absl::FormatDuration(absl::Now() - arrived_at));
    auto it = points_.find(point->key);
    if (it != points_.end() && it->second == point) points_.erase(it);
    point->done_changed.notify_all();
  }
  if (point->result != nullptr) return point->result;
  if (point->aborted) return absl::AbortedError(point->failure);
  return absl::DeadlineExceededError(point->failure);
}

}  // namespace hmo::collectives
