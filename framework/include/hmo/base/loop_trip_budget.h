#ifndef HMO_BASE_LOOP_TRIP_BUDGET_H_
#define HMO_BASE_LOOP_TRIP_BUDGET_H_

// The trip budget of a while loop at execution: how many times one
// execution of a loop may run its body before the run stops with an error
// naming the loop. XLA runs a loop whose condition never fails forever; a
// module that passes the verifier can be such a loop (a counter that stops
// counting), and a user or a fuzzer must get an error, not a hang. The
// evaluator (HloEvaluator::Options::max_loop_iterations) and every
// executable (Executable::set_max_loop_trips) count the same way and fail
// with LoopTripBudgetExceeded's status.

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"

namespace hmo {

// `hmo run`'s default budget (`--max-loop-trips`): far above the trip count
// of any loop a JAX program runs (a scan over a sequence, a training loop),
// small enough that a loop that never ends stops within seconds on the
// backends.
inline constexpr int64_t kDefaultMaxLoopTrips = 1'000'000;

// RESOURCE_EXHAUSTED: `who` (the evaluator or a backend) ran the body of the
// while loop `loop` `max_trips` times and its condition still held.
absl::Status LoopTripBudgetExceeded(std::string_view who, std::string_view loop, int64_t max_trips);

}  // namespace hmo

#endif  // HMO_BASE_LOOP_TRIP_BUDGET_H_
