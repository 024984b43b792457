#ifndef HMO_PLUGIN_FRAMEWORK_FINGERPRINT_H_
#define HMO_PLUGIN_FRAMEWORK_FINGERPRINT_H_

// The build fingerprint of this libhmo_framework.so, which a C++ plugin's
// fingerprint must equal (see plugin_abi.h).

#include <string_view>

namespace hmo {

// Returns HMO_BUILD_FINGERPRINT as the framework library was compiled.
std::string_view FrameworkBuildFingerprint();

}  // namespace hmo

#endif  // HMO_PLUGIN_FRAMEWORK_FINGERPRINT_H_
