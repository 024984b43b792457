#include "core/strategy_abi_adapter.h"

#include "hmo/plugin/plugin_registrars.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "fmt/format.h"

namespace hmo::scheduler {

absl::Status StrategyRequestOptions::CheckKnown(
    std::initializer_list<std::string_view> known) const {
  for (size_t i = 0; i < request_.option_count; ++i) {
    std::string_view key = request_.options[i].key;
    bool found = false;
    for (std::string_view k : known) found = found || k == key;
    if (!found) {
      const std::string takes =
          known.size() == 0 ? std::string("none") : fmt::format("{}", fmt::join(known, ", "));
      return absl::InvalidArgumentError(
          fmt::format("unknown option '{}'; this strategy takes: {}", key, takes));
    }
  }
  return absl::OkStatus();
}

std::optional<std::string_view> StrategyRequestOptions::Find(std::string_view key) const {
  for (size_t i = 0; i < request_.option_count; ++i) {
    if (key == request_.options[i].key) return std::string_view(request_.options[i].value);
  }
  return std::nullopt;
}

absl::StatusOr<int64_t> StrategyRequestOptions::GetInt(std::string_view key,
                                                       int64_t default_value) const {
  std::optional<std::string_view> text = Find(key);
  if (!text.has_value()) return default_value;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) {
    return absl::InvalidArgumentError(
        fmt::format("option '{}' must be an integer, got '{}'", key, *text));
  }
  return value;
}

void StrategyProgress::Report(int64_t done, int64_t total, std::string_view detail) const {
  if (!listening()) return;
  const std::string text(detail);
  hmoReportProgress(&request_, static_cast<uint64_t>(std::max<int64_t>(done, 0)),
                    static_cast<uint64_t>(std::max<int64_t>(total, 0)), text.c_str());
}

HmoPluginInfo StrategyPluginInfo(const char* name, const char* version,
                                 HmoRegisterSchedulerStrategiesFn register_strategies) {
  HmoPluginInfo info = CxxPluginInfo(name, version);
  info.register_scheduler_strategies = register_strategies;
  return info;
}

HmoStatusCode RegisterStrategy(HmoStrategyRegistrar* registrar, const char* name,
                               const char* description, HmoScheduleFn schedule, char* message,
                               size_t message_capacity) {
  HmoSchedulerStrategy strategy{};
  strategy.struct_size = sizeof(HmoSchedulerStrategy);
  strategy.name = name;
  strategy.description = description;
  strategy.schedule = schedule;
  strategy.strategy_data = nullptr;
  return registrar->register_strategy(registrar, &strategy, message, message_capacity);
}

}  // namespace hmo::scheduler
