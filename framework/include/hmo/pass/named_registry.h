#ifndef HMO_PASS_NAMED_REGISTRY_H_
#define HMO_PASS_NAMED_REGISTRY_H_

// A table of registrations by kebab-case name, each remembering the plugin
// that provided it, so that a clash names both plugins. The pass, scheduler
// strategy, backend and analysis registries are all one of these.

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "hmo/pass/kebab_case.h"

namespace hmo {

// A registration and the plugin it came from ("hmo" for the framework).
template <typename T>
struct Registered {
  T registration;
  std::string plugin;
};

// `T` must have a `std::string name` member.
template <typename T>
class NamedRegistry {
 public:
  // `kind` names what is registered, for messages: "pass", "scheduler strategy".
  explicit NamedRegistry(std::string kind) : kind_(std::move(kind)) {}

  // Adds `registration` from `plugin`. Returns InvalidArgument when the name
  // is not kebab-case, and AlreadyExists naming both plugins when it is taken.
  absl::Status Add(T registration, std::string_view plugin) {
    if (!IsKebabCase(registration.name)) {
      return absl::InvalidArgumentError(fmt::format(
          "{} name '{}' from plugin '{}' is not kebab-case", kind_, registration.name, plugin));
    }
    auto it = entries_.find(registration.name);
    if (it != entries_.end()) {
      return absl::AlreadyExistsError(
          fmt::format("{} '{}' from plugin '{}' is already registered by plugin '{}'", kind_,
                      registration.name, plugin, it->second.plugin));
    }
    std::string name = registration.name;
    entries_.emplace(std::move(name), Registered<T>{std::move(registration), std::string(plugin)});
    return absl::OkStatus();
  }

  // Returns the registration called `name`, or null.
  const Registered<T>* Find(std::string_view name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }

  // Returns every registration, sorted by name.
  std::vector<const Registered<T>*> List() const {
    std::vector<const Registered<T>*> list;
    for (const auto& [name, entry] : entries_) list.push_back(&entry);
    return list;
  }

  // Returns every name, sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& [name, entry] : entries_) names.push_back(name);
    return names;
  }

  // Removes every registration `plugin` provided (a plugin that failed to
  // load leaves nothing behind). Returns how many were removed.
  size_t RemoveProvidedBy(std::string_view plugin) {
    return std::erase_if(entries_, [&](const auto& entry) { return entry.second.plugin == plugin; });
  }

  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
  std::map<std::string, Registered<T>, std::less<>> entries_;
};

}  // namespace hmo

#endif  // HMO_PASS_NAMED_REGISTRY_H_
