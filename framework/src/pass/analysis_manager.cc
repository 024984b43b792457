#include "hmo/pass/analysis_manager.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "fmt/format.h"

namespace hmo {
namespace {

std::string ReadableTypeName(std::type_index type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled != nullptr ? demangled : type.name();
  std::free(demangled);
  return name;
}

}  // namespace

absl::StatusOr<const void*> AnalysisManager::GetErased(std::type_index type,
                                                       AnalysisComputeFn own) {
  if (std::find(computing_.begin(), computing_.end(), type) != computing_.end()) {
    return absl::FailedPreconditionError(
        fmt::format("analysis {} depends on itself", ReadableTypeName(type)));
  }
  auto cached = cache_.find(type);
  if (cached == cache_.end()) {
    const RegisteredAnalysis* registered =
        registry_ == nullptr ? nullptr : registry_->FindByType(type);
    AnalysisComputeFn compute = registered != nullptr ? registered->registration.compute : own;
    if (compute == nullptr) {
      return absl::NotFoundError(
          fmt::format("no analysis computes {}: no plugin registers it and it has no Compute()",
                      ReadableTypeName(type)));
    }
    computing_.push_back(type);
    absl::StatusOr<std::shared_ptr<const void>> value = compute(module_, *this);
    computing_.pop_back();
    if (!value.ok()) return value.status();
    ++compute_count_;
    cached = cache_.emplace(type, Entry{*std::move(value), {}}).first;
  }
  if (!computing_.empty()) cached->second.dependents.push_back(computing_.back());
  return cached->second.value.get();
}

void AnalysisManager::Invalidate(const PreservedAnalyses& preserved) {
  std::vector<std::type_index> dropped;
  for (const auto& [type, entry] : cache_) {
    if (!preserved.IsPreserved(type)) dropped.push_back(type);
  }
  while (!dropped.empty()) {
    std::type_index type = dropped.back();
    dropped.pop_back();
    auto it = cache_.find(type);
    if (it == cache_.end()) continue;
    for (std::type_index dependent : it->second.dependents) dropped.push_back(dependent);
    cache_.erase(it);
  }
}

}  // namespace hmo
