#include "hmo/plugin/scheduler_strategy_registry.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "c_option_schema.h"
#include "fmt/format.h"

namespace hmo {
namespace {

constexpr size_t kStrategyMinSize =
    offsetof(HmoSchedulerStrategy, strategy_data) + sizeof(const void*);

}  // namespace

absl::Status SchedulerStrategyRegistry::Register(const HmoSchedulerStrategy& strategy,
                                                 std::string_view plugin) {
  if (strategy.struct_size < kStrategyMinSize) {
    return absl::InvalidArgumentError(fmt::format(
        "a scheduler strategy from plugin '{}' has struct_size {}, less than the {} bytes of "
        "ABI 1.0",
        plugin, strategy.struct_size, kStrategyMinSize));
  }
  if (strategy.name == nullptr || strategy.schedule == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "a scheduler strategy from plugin '{}' has a null {}", plugin,
        strategy.name == nullptr ? std::string("name")
                                 : fmt::format("schedule function ('{}')", strategy.name)));
  }
  SchedulerStrategyRegistration registration;
  registration.name = strategy.name;
  registration.description = strategy.description == nullptr ? "" : strategy.description;
  // Copy only the fields this host knows and the plugin has.
  std::memcpy(&registration.strategy, &strategy,
              std::min(strategy.struct_size, sizeof(HmoSchedulerStrategy)));
  registration.strategy.struct_size = sizeof(HmoSchedulerStrategy);
  if (HMO_ABI_HAS_FIELD(&strategy, HmoSchedulerStrategy, option_count) &&
      strategy.options != nullptr) {
    absl::StatusOr<PassOptionSchema> options =
        OptionSchemaFromDeclarations(strategy.options, strategy.option_count);
    if (!options.ok()) {
      return absl::InvalidArgumentError(fmt::format("scheduler strategy '{}' of plugin '{}' {}",
                                                    strategy.name, plugin,
                                                    std::string(options.status().message())));
    }
    registration.options = *std::move(options);
  }
  return strategies_.Add(std::move(registration), plugin);
}

}  // namespace hmo
