#ifndef HMO_EVAL_COLLECTIVE_EXCHANGE_H_
#define HMO_EVAL_COLLECTIVE_EXCHANGE_H_

// The meeting point of the evaluator's replicas (HloEvaluator::
// EvaluateReplicated): at each collective every replica deposits its
// operand and picks up the operands of the replicas it needs. A round is
// one execution of one collective instruction, told apart by how many
// times the replica ran that instruction before (its occurrence), so the
// rounds of a collective in a loop body match iteration by iteration.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/literal.h"

namespace hmo::eval_internal {

class CollectiveExchange {
 public:
  CollectiveExchange(int64_t num_replicas, std::chrono::milliseconds timeout)
      : num_replicas_(num_replicas), timeout_(timeout) {}

  int64_t num_replicas() const { return num_replicas_; }

  // Deposits `value` as `replica`'s part of round (instruction,
  // occurrence) and waits until each replica of `needed` has deposited its
  // part; returns those parts in the order of `needed`. DEADLINE_EXCEEDED
  // naming the replicas still missing after the timeout; ABORTED when
  // Abort was called (another replica failed).
  absl::StatusOr<std::vector<std::shared_ptr<const Literal>>> Exchange(
      const HloInstruction& instruction, int64_t occurrence, int64_t replica, Literal value,
      absl::Span<const int64_t> needed);

  // Wakes every waiting replica with ABORTED carrying `why`; later
  // Exchange calls fail the same way.
  void Abort(const absl::Status& why);

 private:
  struct Round {
    std::map<int64_t, std::shared_ptr<const Literal>> parts;  // by replica
    int64_t finished = 0;  // replicas done with the round
  };
  using RoundKey = std::pair<const HloInstruction*, int64_t>;

  const int64_t num_replicas_;
  const std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<RoundKey, Round> rounds_;
  absl::Status aborted_;
};

// What one replica's evaluation knows about the replicated run: its number,
// where it meets the others, and how many times it ran each collective.
struct ReplicaContext {
  int64_t replica = 0;
  CollectiveExchange* exchange = nullptr;
  std::map<const HloInstruction*, int64_t> occurrences;
};

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_COLLECTIVE_EXCHANGE_H_
