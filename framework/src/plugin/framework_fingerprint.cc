#include "hmo/plugin/framework_fingerprint.h"

#include "hmo/plugin/build_fingerprint.h"
#include "hmo/plugin/plugin_abi.h"

namespace hmo {

// The header's version must follow the project version (CMakeLists.txt).
static_assert(std::string_view(HMO_FRAMEWORK_VERSION) == std::string_view(HMO_VERSION_STRING),
              "HMO_FRAMEWORK_VERSION in plugin_abi.h differs from the project version");

std::string_view FrameworkBuildFingerprint() { return HMO_BUILD_FINGERPRINT; }

}  // namespace hmo
