#include "hmo/base/loop_trip_budget.h"

#include "fmt/format.h"

namespace hmo {

absl::Status LoopTripBudgetExceeded(std::string_view who, std::string_view loop,
                                    int64_t max_trips) {
  return absl::ResourceExhaustedError(
      fmt::format("{}: while loop {} ran its body {} times and its condition still holds: the loop "
                  "does not end within its trip budget (hmo run --max-loop-trips N|none sets it)",
                  who, loop, max_trips));
}

}  // namespace hmo
