#ifndef HMO_PLUGIN_PLUGIN_LIBRARY_H_
#define HMO_PLUGIN_PLUGIN_LIBRARY_H_

// Opening one plugin shared object (with Boost.DLL) and checking the
// HmoPluginInfo it returns. Registration is PluginHost's job.

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/plugin/framework_fingerprint.h"
#include "hmo/plugin/plugin_abi.h"

namespace hmo {

// A loaded plugin whose info passed every check.
struct PluginLibrary {
  std::filesystem::path file;  // canonical
  // The plugin's info, copied: fields past the plugin's struct_size (an
  // older minor version) are zero / NULL; fields this host does not know (a
  // newer minor version) are dropped.
  HmoPluginInfo info = {};
};

// Loads `file` and validates its entry point. The library stays loaded for
// the life of the process (even when validation fails), because the strings
// and functions it hands out are used for that long.
//
// Every error message starts with the file and says why:
//  - NotFound: the file does not exist;
//  - FailedPrecondition: the dynamic loader refused it (its dlerror text);
//    there is no `hmoGetPluginInfo` entry point; it returned NULL; its
//    struct_size is too small; its ABI major version differs (both versions);
//    it has no name; it is a C++ plugin whose build fingerprint differs from
//    `host_fingerprint` (both fingerprints); or it is a C plugin (no
//    fingerprint) that sets C++-only callbacks.
absl::StatusOr<PluginLibrary> OpenPluginLibrary(
    const std::filesystem::path& file,
    std::string_view host_fingerprint = FrameworkBuildFingerprint());

}  // namespace hmo

#endif  // HMO_PLUGIN_PLUGIN_LIBRARY_H_
