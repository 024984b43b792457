#include "hmo/plugin/plugin_host.h"

#include <array>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/plugin/abi_status.h"
#include "hmo/plugin/plugin_library.h"
#include "hmo/plugin/plugin_registrars.h"
#include "hmo/plugin/scheduler_strategy_abi.h"

namespace hmo {
namespace {

// The host side of an HmoStrategyRegistrar.
struct StrategyRegistrarState {
  SchedulerStrategyRegistry* registry;
  std::string plugin;
  std::vector<std::string> registered;
  absl::Status first_error;
};

HmoStatusCode RegisterStrategy(HmoStrategyRegistrar* registrar,
                               const HmoSchedulerStrategy* strategy, char* message,
                               size_t capacity) {
  auto* state = static_cast<StrategyRegistrarState*>(registrar->host_data);
  absl::Status status =
      strategy == nullptr
          ? absl::InvalidArgumentError(
                fmt::format("plugin '{}' registered a NULL scheduler strategy", state->plugin))
          : state->registry->Register(*strategy, state->plugin);
  if (status.ok()) {
    state->registered.push_back(strategy->name);
  } else if (state->first_error.ok()) {
    state->first_error = status;
  }
  return StatusToAbi(status, message, capacity);
}

// Calls one registration callback and turns its outcome, or a registration
// error the plugin swallowed, into a status that names the file and callback.
template <typename Handle>
absl::Status RunCallback(const std::filesystem::path& file, const LoadedPlugin& plugin,
                         const char* callback_name,
                         HmoStatusCode (*callback)(Handle*, char*, size_t), Handle* handle,
                         const absl::Status& (*first_error)(const void*), const void* registrar) {
  std::array<char, HMO_MESSAGE_CAPACITY> message{};
  const HmoStatusCode code = callback(handle, message.data(), message.size());
  absl::Status status = StatusFromAbi(code, message.data());
  if (status.ok()) status = first_error(registrar);
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      fmt::format("{}: plugin '{}': {} failed: {}", file.string(),
                                  plugin.name, callback_name, std::string(status.message())));
}

template <typename Registrar>
const absl::Status& FirstErrorOf(const void* registrar) {
  return static_cast<const Registrar*>(registrar)->first_error();
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

  if (info.register_passes != nullptr) {
    PassRegistrar registrar(registries_.passes, plugin.name);
    absl::Status status = RunCallback(file, plugin, "register_passes", info.register_passes,
                                      registrar.handle(), &FirstErrorOf<PassRegistrar>, &registrar);
    plugin.passes = registrar.registered();
    HMO_RETURN_IF_ERROR(status);
  }
  if (info.register_scheduler_strategies != nullptr) {
    StrategyRegistrarState state{&registries_.strategies, plugin.name, {}, absl::OkStatus()};
    HmoStrategyRegistrar registrar{sizeof(HmoStrategyRegistrar), &RegisterStrategy, &state};
    absl::Status status = RunCallback(
        file, plugin, "register_scheduler_strategies", info.register_scheduler_strategies, &registrar,
        [](const void* s) -> const absl::Status& {
          return static_cast<const StrategyRegistrarState*>(s)->first_error;
        },
        &state);
    plugin.strategies = state.registered;
    HMO_RETURN_IF_ERROR(status);
  }
  if (info.register_backends != nullptr) {
    BackendRegistrar registrar(registries_.backends, plugin.name);
    absl::Status status =
        RunCallback(file, plugin, "register_backends", info.register_backends, registrar.handle(),
                    &FirstErrorOf<BackendRegistrar>, &registrar);
    plugin.backends = registrar.registered();
    HMO_RETURN_IF_ERROR(status);
  }
  if (info.register_analyses != nullptr) {
    AnalysisRegistrar registrar(registries_.analyses, plugin.name);
    absl::Status status =
        RunCallback(file, plugin, "register_analyses", info.register_analyses, registrar.handle(),
                    &FirstErrorOf<AnalysisRegistrar>, &registrar);
    plugin.analyses = registrar.registered();
    HMO_RETURN_IF_ERROR(status);
  }
  plugins_.push_back(std::move(plugin));
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
