#include "core/strategy_abi_adapter.h"

#include "hmo/plugin/plugin_registrars.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"

namespace hmo::scheduler {

StrategyOptionTable::StrategyOptionTable(std::vector<StrategyIntOption> options)
    : options_(std::move(options)) {
  default_texts_.reserve(options_.size());
  declarations_.reserve(options_.size());
  for (const StrategyIntOption& option : options_) {
    default_texts_.push_back(std::to_string(option.default_value));
    HmoPassOptionDecl declaration{};
    declaration.struct_size = sizeof(HmoPassOptionDecl);
    declaration.key = option.key.c_str();
    declaration.type = kHmoPassOptionInt;
    declaration.default_value = default_texts_.back().c_str();
    declaration.help = option.help.c_str();
    declarations_.push_back(declaration);
  }
  for (const HmoPassOptionDecl& declaration : declarations_) pointers_.push_back(&declaration);
}

const HmoPassOptionDecl* const* StrategyOptionTable::declarations() const {
  static const HmoPassOptionDecl* const kNone[1] = {nullptr};
  return pointers_.empty() ? kNone : pointers_.data();
}

std::optional<int64_t> StrategyOptionTable::Default(std::string_view key) const {
  for (const StrategyIntOption& option : options_) {
    if (option.key == key) return option.default_value;
  }
  return std::nullopt;
}

const StrategyOptionTable& NoStrategyOptions() {
  static const auto* table = new StrategyOptionTable({});
  return *table;
}

absl::Status StrategyRequestOptions::CheckDeclared() const {
  for (size_t i = 0; i < request_.option_count; ++i) {
    const std::string_view key = request_.options[i].key;
    if (!table_.Default(key).has_value()) {
      std::vector<std::string_view> known;
      for (size_t d = 0; d < table_.size(); ++d) known.push_back(table_.declarations()[d]->key);
      return absl::InvalidArgumentError(fmt::format(
          "unknown option '{}'; this strategy takes: {}", key,
          known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", "))));
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

absl::StatusOr<int64_t> StrategyRequestOptions::GetInt(std::string_view key) const {
  std::optional<std::string_view> text = Find(key);
  if (!text.has_value()) {
    std::optional<int64_t> default_value = table_.Default(key);
    if (!default_value.has_value()) {
      return absl::InternalError(fmt::format("option '{}' is not declared", key));
    }
    return *default_value;
  }
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
                               const char* description, HmoScheduleFn schedule,
                               const StrategyOptionTable& options, char* message,
                               size_t message_capacity) {
  HmoSchedulerStrategy strategy{};
  strategy.struct_size = sizeof(HmoSchedulerStrategy);
  strategy.name = name;
  strategy.description = description;
  strategy.schedule = schedule;
  strategy.strategy_data = &options;
  strategy.options = options.declarations();
  strategy.option_count = options.size();
  return registrar->register_strategy(registrar, &strategy, message, message_capacity);
}

}  // namespace hmo::scheduler
