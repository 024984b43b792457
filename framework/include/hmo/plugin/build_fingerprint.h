#ifndef HMO_PLUGIN_BUILD_FINGERPRINT_H_
#define HMO_PLUGIN_BUILD_FINGERPRINT_H_

// HMO_BUILD_FINGERPRINT: what a C++ plugin's build must share with the host's,
// as one string literal, because C++ types (absl::Status, std::function,
// std::shared_ptr<Backend>, the framework's classes) cross the boundary:
//  - the framework version and a digest of every public header of the SDK
//    (hmo/plugin/headers_digest.h, generated when the build is configured);
//  - the compiler and its version;
//  - the C++ standard library, its version and (libstdc++) its string ABI;
//  - Abseil's LTS release and inline namespace.
// The host and a C++ plugin each expand this macro in their own build, and
// the host compares the two strings (plugin_abi.h, build_fingerprint).

#include "absl/base/config.h"
#include "hmo/plugin/headers_digest.h"
#include "hmo/plugin/plugin_abi.h"

#define HMO_FINGERPRINT_STRINGIFY_INNER_(x) #x
#define HMO_FINGERPRINT_STRINGIFY_(x) HMO_FINGERPRINT_STRINGIFY_INNER_(x)

#if defined(__clang__)
#define HMO_FINGERPRINT_COMPILER_ "clang " __clang_version__
#elif defined(__GNUC__)
#define HMO_FINGERPRINT_COMPILER_ "gcc " __VERSION__
#elif defined(_MSC_VER)
#define HMO_FINGERPRINT_COMPILER_ "msvc " HMO_FINGERPRINT_STRINGIFY_(_MSC_FULL_VER)
#else
#define HMO_FINGERPRINT_COMPILER_ "unknown-compiler"
#endif

#if defined(_LIBCPP_VERSION)
#define HMO_FINGERPRINT_STDLIB_ "libc++ " HMO_FINGERPRINT_STRINGIFY_(_LIBCPP_VERSION)
#elif defined(__GLIBCXX__)
#define HMO_FINGERPRINT_STDLIB_                                                       \
  "libstdc++ " HMO_FINGERPRINT_STRINGIFY_(_GLIBCXX_RELEASE) " (" HMO_FINGERPRINT_STRINGIFY_( \
      __GLIBCXX__) ") cxx11-abi=" HMO_FINGERPRINT_STRINGIFY_(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_MSVC_STL_VERSION)
#define HMO_FINGERPRINT_STDLIB_ "msvc-stl " HMO_FINGERPRINT_STRINGIFY_(_MSVC_STL_VERSION)
#else
#define HMO_FINGERPRINT_STDLIB_ "unknown-stdlib"
#endif

#if defined(ABSL_LTS_RELEASE_VERSION)
#define HMO_FINGERPRINT_ABSEIL_                                               \
  "abseil " HMO_FINGERPRINT_STRINGIFY_(ABSL_LTS_RELEASE_VERSION) "." HMO_FINGERPRINT_STRINGIFY_( \
      ABSL_LTS_RELEASE_PATCH_LEVEL) " ns=" HMO_FINGERPRINT_STRINGIFY_(ABSL_OPTION_INLINE_NAMESPACE_NAME)
#else
#define HMO_FINGERPRINT_ABSEIL_ \
  "abseil head ns=" HMO_FINGERPRINT_STRINGIFY_(ABSL_OPTION_INLINE_NAMESPACE_NAME)
#endif

#define HMO_BUILD_FINGERPRINT                                                    \
  "hmo " HMO_FRAMEWORK_VERSION " headers " HMO_HEADERS_DIGEST "; " HMO_FINGERPRINT_COMPILER_ \
  "; " HMO_FINGERPRINT_STDLIB_ "; " HMO_FINGERPRINT_ABSEIL_

#endif  // HMO_PLUGIN_BUILD_FINGERPRINT_H_
