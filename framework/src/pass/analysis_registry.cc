#include "hmo/pass/analysis_registry.h"

#include "fmt/format.h"

namespace hmo {

absl::Status AnalysisRegistry::Register(AnalysisRegistration registration,
                                        std::string_view plugin) {
  if (registration.compute == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "analysis '{}' from plugin '{}' has no compute function", registration.name, plugin));
  }
  auto by_type = name_by_type_.find(registration.type);
  if (by_type != name_by_type_.end()) {
    const RegisteredAnalysis* existing = analyses_.Find(by_type->second);
    return absl::AlreadyExistsError(fmt::format(
        "analysis '{}' from plugin '{}' computes the same type as analysis '{}' from plugin '{}'",
        registration.name, plugin, by_type->second, existing->plugin));
  }
  const std::type_index type = registration.type;
  std::string name = registration.name;
  absl::Status added = analyses_.Add(std::move(registration), plugin);
  if (added.ok()) name_by_type_.emplace(type, std::move(name));
  return added;
}

const RegisteredAnalysis* AnalysisRegistry::FindByType(std::type_index type) const {
  auto it = name_by_type_.find(type);
  return it == name_by_type_.end() ? nullptr : analyses_.Find(it->second);
}

void AnalysisRegistry::RemoveProvidedBy(std::string_view plugin) {
  absl::erase_if(name_by_type_, [&](const auto& entry) {
    const RegisteredAnalysis* analysis = analyses_.Find(entry.second);
    return analysis != nullptr && analysis->plugin == plugin;
  });
  analyses_.RemoveProvidedBy(plugin);
}

}  // namespace hmo
