#ifndef HMO_COLLECTIVES_RENDEZVOUS_H_
#define HMO_COLLECTIVES_RENDEZVOUS_H_

// In-process rendezvous of the ranks of a clique: each rank (a thread driving
// one device) arrives at a named point with a value and leaves with the
// values of all ranks, in rank order (an all-gather). Every wait has a
// deadline: a rank that does not arrive turns into a DEADLINE_EXCEEDED error
// on every rank that did, naming the missing ranks. It never hangs.
//
// A point is identified by its key and is single-use: it is forgotten as soon
// as the last rank arrives (or the first waiter times out), so the same key
// can be used again for the next round. A rank arriving after the point timed
// out starts a new round and times out itself, naming the ranks that are no
// longer there.

#include <any>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include "absl/strings/string_view.h"
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace hmo::collectives {

// Describes a rank in error messages, e.g. "rank 2 (device 7)". Optional.
using RankNamer = std::function<std::string(int rank)>;

class Rendezvous {
 public:
  Rendezvous() = default;
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;
  // Must outlive every call in progress.
  ~Rendezvous() = default;

  // Arrives at point `key` as `rank` of `num_ranks` with `value`; waits until
  // all ranks arrived or `deadline` passed. Returns the values of ranks
  // 0..num_ranks-1. Errors: DEADLINE_EXCEEDED naming the missing ranks;
  // INVALID_ARGUMENT for a rank out of range, a rank arriving twice at the
  // same round, or ranks disagreeing on num_ranks; INTERNAL when ranks
  // contribute values of different types under one key. With num_ranks == 1
  // it returns at once, whatever the deadline.
  template <typename T>
  absl::StatusOr<std::vector<T>> AllGather(absl::string_view key, int num_ranks, int rank, T value,
                                           absl::Time deadline, const RankNamer& rank_namer = {}) {
    static_assert(std::is_copy_constructible_v<T>, "rendezvous values are copied to every rank");
    absl::StatusOr<std::shared_ptr<const std::vector<std::any>>> values =
        ArriveAndWait(key, num_ranks, rank, std::any(std::move(value)), deadline, rank_namer);
    if (!values.ok()) return values.status();
    std::vector<T> result;
    result.reserve((*values)->size());
    for (size_t r = 0; r < (*values)->size(); ++r) {
      const T* typed = std::any_cast<T>(&(**values)[r]);
      if (typed == nullptr) {
        return absl::InternalError(absl::StrCat("rendezvous '", key, "': rank ", r,
                                                " contributed a value of another type"));
      }
      result.push_back(*typed);
    }
    return result;
  }

  // Points some rank is waiting at (for tests and diagnostics).
  size_t num_pending() const;

  // Fails every point a rank waits at, and every later arrival, with
  // ABORTED `why`: a rank failed and will not arrive, so its peers need not
  // wait for the deadline.
  void Abort(const std::string& why);

 private:
  struct Point;

  absl::StatusOr<std::shared_ptr<const std::vector<std::any>>> ArriveAndWait(
      absl::string_view key, int num_ranks, int rank, std::any value, absl::Time deadline,
      const RankNamer& rank_namer);

  // A std::mutex (not absl::Mutex) so ThreadSanitizer sees the
  // synchronization even against an uninstrumented absl.
  mutable std::mutex mu_;
  // Guarded by mu_: the points some rank is waiting at, by key.
  absl::flat_hash_map<std::string, std::shared_ptr<Point>> points_;
  // Guarded by mu_: why the rendezvous was aborted (empty: it was not).
  std::string aborted_;
};

}  // namespace hmo::collectives

#endif  // HMO_COLLECTIVES_RENDEZVOUS_H_
