#ifndef HMO_PLUGIN_PLUGIN_REGISTRARS_H_
#define HMO_PLUGIN_PLUGIN_REGISTRARS_H_

// The C++ side of the registrar handles a C++ plugin's callbacks receive, and
// the helpers that let such a plugin write its entry point in a few lines:
//
//   absl::Status RegisterPasses(hmo::PassRegistrar& passes) {
//     return passes.Register<MyPass>();
//   }
//   HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
//     static const HmoPluginInfo info = [] {
//       HmoPluginInfo info = hmo::CxxPluginInfo("my-plugin", "1.0.0");
//       info.register_passes = hmo::RegistrationCallback<&RegisterPasses>;
//       return info;
//     }();
//     return &info;
//   }
//
// A registrar registers into one host registry on behalf of one plugin, and
// records the names it registered (for `hmo plugins`).

#include <concepts>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "hmo/pass/analysis_registry.h"
#include "hmo/pass/pass_registry.h"
#include "hmo/plugin/abi_status.h"
#include "hmo/plugin/backend.h"
#include "hmo/plugin/build_fingerprint.h"
#include "hmo/plugin/plugin_abi.h"

namespace hmo {

// Registers one kind of thing (`Registration`) into `Registry`; `HandleT` is
// the opaque C type the plugin's callback receives.
template <typename Registry, typename Registration, typename HandleT>
class PluginRegistrar {
 public:
  using Handle = HandleT;

  PluginRegistrar(Registry& registry, std::string plugin)
      : registry_(registry), plugin_(std::move(plugin)) {}

  static PluginRegistrar& FromHandle(Handle* handle) {
    return *reinterpret_cast<PluginRegistrar*>(handle);
  }
  Handle* handle() { return reinterpret_cast<Handle*>(this); }

  // Registers `registration` in the registry (see its Register for errors).
  absl::Status Register(Registration registration) {
    std::string name = registration.name;
    absl::Status status = registry_.Register(std::move(registration), plugin_);
    if (status.ok()) {
      registered_.push_back(std::move(name));
    } else if (first_error_.ok()) {
      first_error_ = status;
    }
    return status;
  }

  // Registers pass class `PassT` (see MakePassRegistration); passes only.
  template <typename PassT>
    requires std::same_as<Registration, PassRegistration>
  absl::Status Register() {
    return Register(MakePassRegistration<PassT>());
  }

  // The names registered through this registrar, in order.
  const std::vector<std::string>& registered() const { return registered_; }
  // The first failed registration, even if the plugin ignored it; OK if none.
  const absl::Status& first_error() const { return first_error_; }

 private:
  Registry& registry_;
  std::string plugin_;
  std::vector<std::string> registered_;
  absl::Status first_error_;
};

using PassRegistrar = PluginRegistrar<PassRegistry, PassRegistration, HmoPassRegistrar>;
using BackendRegistrar = PluginRegistrar<BackendRegistry, BackendRegistration, HmoBackendRegistrar>;
using AnalysisRegistrar =
    PluginRegistrar<AnalysisRegistry, AnalysisRegistration, HmoAnalysisRegistrar>;

// Returns the HmoPluginInfo of a C++ plugin named `name` at `version`, with the
// fingerprint of the build this header is compiled in and no callbacks yet.
// Both strings must have static storage.
constexpr HmoPluginInfo CxxPluginInfo(const char* name, const char* version) {
  HmoPluginInfo info{};
  info.struct_size = sizeof(HmoPluginInfo);
  info.abi_major = HMO_PLUGIN_ABI_MAJOR;
  info.abi_minor = HMO_PLUGIN_ABI_MINOR;
  info.name = name;
  info.version = version;
  info.build_fingerprint = HMO_BUILD_FINGERPRINT;
  return info;
}

template <typename Fn>
struct RegistrarOfFunction;
template <typename Registrar>
struct RegistrarOfFunction<absl::Status (*)(Registrar&)> {
  using type = Registrar;
};

// Adapts a function `absl::Status Fn(XRegistrar&)` to the matching C callback
// type of plugin_abi.h: the status becomes a code and message, and an
// exception becomes kInternal instead of crossing the boundary.
template <auto Fn>
HmoStatusCode RegistrationCallback(
    typename RegistrarOfFunction<decltype(Fn)>::type::Handle* handle, char* message,
    size_t capacity) noexcept {
  using Registrar = typename RegistrarOfFunction<decltype(Fn)>::type;
  return CallReturningAbiStatus([&] { return Fn(Registrar::FromHandle(handle)); }, message,
                                capacity);
}

}  // namespace hmo

#endif  // HMO_PLUGIN_PLUGIN_REGISTRARS_H_
