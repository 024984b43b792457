#include "hmo/plugin/plugin_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace hmo {
namespace {

// Libraries are never unloaded: strings, functions and registered objects
// from a plugin are used until the process exits. Deliberately leaked so no
// static destructor unloads them before other exit-time code runs.
void KeepLoaded(boost::dll::shared_library library) {
  static std::mutex* mutex = new std::mutex;
  static auto* libraries = new std::vector<boost::dll::shared_library>;
  std::lock_guard<std::mutex> lock(*mutex);
  libraries->push_back(std::move(library));
}

absl::Status Refuse(const std::filesystem::path& file, std::string_view why) {
  return absl::FailedPreconditionError(fmt::format("{}: {}", file.string(), why));
}

}  // namespace

absl::StatusOr<PluginLibrary> OpenPluginLibrary(const std::filesystem::path& file,
                                                std::string_view host_fingerprint) {
  std::error_code fs_error;
  if (!std::filesystem::is_regular_file(file, fs_error)) {
    return absl::NotFoundError(fmt::format("{}: plugin file not found", file.string()));
  }
  const std::filesystem::path canonical = std::filesystem::canonical(file, fs_error);

  boost::dll::shared_library library;
  boost::dll::fs::error_code load_error;
  dlerror();  // clear any stale message
  library.load(canonical, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local,
               load_error);
  if (load_error || !library.is_loaded()) {
    const char* reason = dlerror();
    return Refuse(file, fmt::format("cannot load: {}",
                                    reason != nullptr ? reason : load_error.message()));
  }
  if (!library.has(HMO_PLUGIN_ENTRY_POINT_NAME)) {
    KeepLoaded(std::move(library));
    return Refuse(file, "no entry point '" HMO_PLUGIN_ENTRY_POINT_NAME
                        "' (is it an hmo plugin? build it with hmo_add_plugin)");
  }
  auto get_info = library.get<const HmoPluginInfo*()>(HMO_PLUGIN_ENTRY_POINT_NAME);
  KeepLoaded(library);
  const HmoPluginInfo* info = get_info();
  if (info == nullptr) {
    return Refuse(file, HMO_PLUGIN_ENTRY_POINT_NAME "() returned NULL");
  }
  // struct_size, abi_major and abi_minor lead the struct in every ABI version.
  constexpr size_t kHeaderSize = offsetof(HmoPluginInfo, abi_minor) + sizeof(uint32_t);
  if (info->struct_size < kHeaderSize) {
    return Refuse(file, fmt::format("plugin info struct_size is {} bytes, too small to hold even "
                                    "the ABI version",
                                    info->struct_size));
  }
  if (info->abi_major != HMO_PLUGIN_ABI_MAJOR) {
    return Refuse(file, fmt::format("plugin ABI version is {}.{} but this hmo supports {}.x (up "
                                    "to {}.{}); rebuild the plugin against this hmo",
                                    info->abi_major, info->abi_minor, HMO_PLUGIN_ABI_MAJOR,
                                    HMO_PLUGIN_ABI_MAJOR, HMO_PLUGIN_ABI_MINOR));
  }
  if (info->struct_size < HMO_PLUGIN_INFO_MIN_SIZE) {
    return Refuse(file, fmt::format("plugin info struct_size is {} bytes, less than the {} bytes "
                                    "of ABI {}.0",
                                    info->struct_size, HMO_PLUGIN_INFO_MIN_SIZE,
                                    HMO_PLUGIN_ABI_MAJOR));
  }
  PluginLibrary opened;
  opened.file = canonical;
  std::memcpy(&opened.info, info, std::min(info->struct_size, sizeof(HmoPluginInfo)));
  opened.info.struct_size = sizeof(HmoPluginInfo);
  const HmoPluginInfo& copy = opened.info;
  if (copy.name == nullptr || copy.name[0] == '\0') {
    return Refuse(file, "plugin info has no name");
  }
  if (copy.build_fingerprint == nullptr) {
    const char* cxx_callback = copy.register_passes != nullptr     ? "register_passes"
                               : copy.register_backends != nullptr ? "register_backends"
                               : copy.register_analyses != nullptr ? "register_analyses"
                                                                    : nullptr;
    if (cxx_callback != nullptr) {
      return Refuse(file, fmt::format("plugin '{}' has no build fingerprint (a C plugin) but "
                                      "sets {}, which passes C++ objects and needs the "
                                      "fingerprint",
                                      copy.name, cxx_callback));
    }
  } else if (host_fingerprint != copy.build_fingerprint) {
    return Refuse(file, fmt::format("plugin '{}' was built for '{}' but this hmo is '{}'; "
                                    "rebuild the plugin against this hmo",
                                    copy.name, copy.build_fingerprint, host_fingerprint));
  }
  return opened;
}

}  // namespace hmo
