#ifndef HMO_EVAL_COLLECTIVE_EXCHANGE_H_
#define HMO_EVAL_COLLECTIVE_EXCHANGE_H_

// The meeting point of the evaluator's devices (HloEvaluator::
// EvaluateReplicated): at each collective every device deposits its
// operands and picks up the deposits of the devices it needs. A round is
// one execution of one collective instruction, told apart by how many
// times the device ran that instruction before (its occurrence), so the
// rounds of a collective in a loop body match iteration by iteration.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/ir/collective_attributes.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/literal.h"

namespace hmo::eval_internal {

// How messages name `device` of `grid`: "replica r" while there is one
// partition (the replicas are the devices), else "device d (replica r,
// partition p)".
std::string DeviceName(const DeviceGrid& grid, int64_t device);

class CollectiveExchange {
 public:
  CollectiveExchange(const DeviceGrid& grid, std::chrono::milliseconds timeout)
      : grid_(grid), timeout_(timeout) {}

  const DeviceGrid& grid() const { return grid_; }

  // Deposits `value` as `device`'s part of round (instruction, occurrence)
  // and waits until each device of `needed` has deposited its part; returns
  // those parts in the order of `needed`. DEADLINE_EXCEEDED naming the
  // devices still missing after the timeout; ABORTED when Abort was called
  // (another device failed).
  absl::StatusOr<std::vector<std::shared_ptr<const Literal>>> Exchange(
      const HloInstruction& instruction, int64_t occurrence, int64_t device, Literal value,
      absl::Span<const int64_t> needed);

  // Wakes every waiting device with ABORTED carrying `why`; later Exchange
  // calls fail the same way.
  void Abort(const absl::Status& why);

 private:
  struct Round {
    std::map<int64_t, std::shared_ptr<const Literal>> parts;  // by device
    int64_t finished = 0;                                     // devices done with the round
  };
  using RoundKey = std::pair<const HloInstruction*, int64_t>;

  const DeviceGrid grid_;
  const std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<RoundKey, Round> rounds_;
  absl::Status aborted_;
};

// What one device's evaluation knows about the SPMD run: its number (its
// replica and partition follow from the exchange's grid), where it meets
// the others, and how many times it ran each collective.
struct DeviceContext {
  int64_t device = 0;
  CollectiveExchange* exchange = nullptr;
  std::map<const HloInstruction*, int64_t> occurrences;
};

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_COLLECTIVE_EXCHANGE_H_
