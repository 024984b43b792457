#include "core/improver_request_options.h"

#include <algorithm>

#include "fmt/format.h"

namespace hmo::scheduler {

absl::StatusOr<ImproverOptions> ReadImproverOptions(const StrategyRequestOptions& options) {
  ImproverOptions out;
  struct Field {
    std::string_view key;
    int64_t* value;
  };
  int64_t move_radius = out.move_radius, max_move_distance = out.max_move_distance,
          window = out.window;
  for (Field field : {Field{"move-radius", &move_radius},
                      Field{"max-move-distance", &max_move_distance}, Field{"window", &window},
                      Field{"window-states", &out.window_states},
                      Field{"max-evaluations", &out.max_evaluations}}) {
    absl::StatusOr<int64_t> value = options.GetInt(field.key, *field.value);
    if (!value.ok()) return value.status();
    if (*value < 0) {
      return absl::InvalidArgumentError(
          fmt::format("option '{}' must not be negative", field.key));
    }
    *field.value = *value;
  }
  if (window > 64) return absl::InvalidArgumentError("option 'window' must be at most 64");
  out.move_radius = static_cast<int>(std::min<int64_t>(move_radius, 1 << 20));
  out.max_move_distance = static_cast<int>(std::min<int64_t>(max_move_distance, 1 << 30));
  out.window = static_cast<int>(window);
  return out;
}

}  // namespace hmo::scheduler
