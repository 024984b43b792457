#include "hmo/pass/pass_registry.h"

#include "fmt/format.h"

namespace hmo {

absl::Status PassRegistry::Register(PassRegistration registration, std::string_view plugin) {
  if (registration.name == "fixed-point") {
    return absl::InvalidArgumentError(fmt::format(
        "pass name 'fixed-point' from plugin '{}' is reserved for pipeline groups", plugin));
  }
  if (!registration.create) {
    return absl::InvalidArgumentError(fmt::format("pass '{}' from plugin '{}' has no factory",
                                                  registration.name, plugin));
  }
  return passes_.Add(std::move(registration), plugin);
}

}  // namespace hmo
