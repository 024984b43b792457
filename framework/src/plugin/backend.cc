#include "hmo/plugin/backend.h"

#include "fmt/format.h"

namespace hmo {

absl::Status BackendRegistry::Register(BackendRegistration registration,
                                       std::string_view plugin) {
  if (registration.backend == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("backend '{}' from plugin '{}' is null", registration.name, plugin));
  }
  if (registration.backend->name() != registration.name) {
    return absl::InvalidArgumentError(
        fmt::format("backend registered as '{}' from plugin '{}' calls itself '{}'",
                    registration.name, plugin, registration.backend->name()));
  }
  return backends_.Add(std::move(registration), plugin);
}

}  // namespace hmo
