#include "hmo/plugin/plugin_host.h"

#include <array>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "c_pass_registration.h"
#include "c_registrar.h"
#include "hmo/plugin/abi_status.h"
#include "hmo/plugin/pass_abi.h"
#include "hmo/plugin/plugin_library.h"
#include "hmo/plugin/plugin_registrars.h"
#include "hmo/plugin/scheduler_strategy_abi.h"

namespace hmo {
namespace {

// Calls one registration callback (when the plugin has it) through
// `registrar`, records what was registered in `registered`, and turns a
// failure, or a registration error the plugin swallowed, into a status that
// names the file, the plugin and the callback.
template <typename Registrar, typename Callback>
absl::Status RunRegistration(const std::filesystem::path& file, const std::string& plugin,
                             const char* callback_name, Callback callback, Registrar& registrar,
                             std::vector<std::string>& registered) {
  if (callback == nullptr) return absl::OkStatus();
  std::array<char, HMO_MESSAGE_CAPACITY> message{};
  const HmoStatusCode code = callback(registrar.handle(), message.data(), message.size());
  absl::Status status = StatusFromAbi(code, AbiMessage(message.data(), message.size()));
  if (status.ok()) status = registrar.first_error();
  registered = registrar.registered();
  if (status.ok()) return status;
  return absl::Status(status.code(), fmt::format("{}: plugin '{}': {} failed: {}", file.string(),
                                                 plugin, callback_name,
                                                 std::string(status.message())));
}

}  // namespace

absl::Status PluginHost::LoadPlugin(const std::filesystem::path& file) {
  std::error_code error;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(file, error);
  for (const LoadedPlugin& loaded : plugins_) {
    if (loaded.file == canonical) return absl::OkStatus();
  }
  HMO_ASSIGN_OR_RETURN(PluginLibrary library, OpenPluginLibrary(file));
  const HmoPluginInfo& info = library.info;
  for (const LoadedPlugin& loaded : plugins_) {
    if (loaded.name == info.name) {
      return absl::AlreadyExistsError(fmt::format("{}: plugin '{}' is already loaded from {}",
                                                  file.string(), info.name,
                                                  loaded.file.string()));
    }
  }
  LoadedPlugin plugin;
  plugin.file = library.file;
  plugin.name = info.name;
  plugin.version = info.version == nullptr ? "" : info.version;
  plugin.abi_major = info.abi_major;
  plugin.abi_minor = info.abi_minor;
  plugin.cxx = info.build_fingerprint != nullptr;

  // A plugin loads whole or not at all: when one callback fails, what the
  // earlier ones registered is withdrawn, so no pass of a plugin that is not
  // recorded as loaded stays runnable.
  absl::Status registered = RunRegistrations(file, info, plugin);
  if (!registered.ok()) {
    registries_.passes.RemoveProvidedBy(plugin.name);
    registries_.strategies.RemoveProvidedBy(plugin.name);
    registries_.backends.RemoveProvidedBy(plugin.name);
    registries_.analyses.RemoveProvidedBy(plugin.name);
    return registered;
  }
  plugins_.push_back(std::move(plugin));
  return absl::OkStatus();
}

absl::Status PluginHost::RunRegistrations(const std::filesystem::path& file,
                                          const HmoPluginInfo& info, LoadedPlugin& plugin) {
  PassRegistrar passes(registries_.passes, plugin.name);
  HMO_RETURN_IF_ERROR(RunRegistration(file, plugin.name, "register_passes", info.register_passes,
                                      passes, plugin.passes));
  CRegistrar<HmoStrategyRegistrar, HmoSchedulerStrategy> strategies(
      [&](const HmoSchedulerStrategy& strategy) {
        return registries_.strategies.Register(strategy, plugin.name);
      },
      plugin.name, "scheduler strategy");
  HMO_RETURN_IF_ERROR(RunRegistration(file, plugin.name, "register_scheduler_strategies",
                                      info.register_scheduler_strategies, strategies,
                                      plugin.strategies));
  BackendRegistrar backends(registries_.backends, plugin.name);
  HMO_RETURN_IF_ERROR(RunRegistration(file, plugin.name, "register_backends",
                                      info.register_backends, backends, plugin.backends));
  AnalysisRegistrar analyses(registries_.analyses, plugin.name);
  HMO_RETURN_IF_ERROR(RunRegistration(file, plugin.name, "register_analyses",
                                      info.register_analyses, analyses, plugin.analyses));
  // C passes join the C++ ones in the pass registry and in `plugin.passes`.
  CRegistrar<HmoCPassRegistrar, HmoCPass> c_passes(
      [&](const HmoCPass& pass) -> absl::Status {
        HMO_ASSIGN_OR_RETURN(PassRegistration registration,
                             MakeCPassRegistration(pass, plugin.name));
        return registries_.passes.Register(std::move(registration), plugin.name);
      },
      plugin.name, "C pass");
  std::vector<std::string> c_pass_names;
  HMO_RETURN_IF_ERROR(RunRegistration(file, plugin.name, "register_c_passes",
                                      info.register_c_passes, c_passes, c_pass_names));
  plugin.passes.insert(plugin.passes.end(), c_pass_names.begin(), c_pass_names.end());
  return absl::OkStatus();
}

absl::Status PluginHost::LoadPluginReference(std::string_view reference,
                                             const PluginSearchPath& search_path,
                                             const std::filesystem::path& base_directory) {
  HMO_ASSIGN_OR_RETURN(std::filesystem::path file,
                       search_path.Resolve(reference, base_directory));
  return LoadPlugin(file);
}

std::vector<absl::Status> PluginHost::LoadAllPlugins(const PluginSearchPath& search_path) {
  std::vector<absl::Status> errors;
  for (const std::filesystem::path& file : search_path.ListPluginFiles()) {
    absl::Status status = LoadPlugin(file);
    if (!status.ok()) errors.push_back(std::move(status));
  }
  return errors;
}

}  // namespace hmo
