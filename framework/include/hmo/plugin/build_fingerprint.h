#ifndef HMO_PLUGIN_BUILD_FINGERPRINT_H_
#define HMO_PLUGIN_BUILD_FINGERPRINT_H_

// HMO_BUILD_FINGERPRINT: what a C++ plugin's build must share with the host's,
// as one string literal, because C++ types (absl::Status, std::function,
// std::shared_ptr<Backend>, the framework's classes) cross the boundary:
//  - the framework version and a digest of every public header of the SDK
//    (hmo/plugin/headers_digest.h, generated when the build is configured);
//  - the compiler and its version;
//  - the C++ standard library, its version and (libstdc++) its string ABI;
//  - Abseil's LTS release and inline namespace;
//  - the build settings that change what the headers' inline code does or
//    how objects are laid out and allocated: assertions (NDEBUG: Abseil's
//    containers check and probe differently) and the sanitizers that
//    instrument containers or need their runtime loaded first (address,
//    thread, memory). UndefinedBehaviorSanitizer changes neither, and has no
//    macro to test, so it is not part of it.
// LLVM is not: no SDK header names an LLVM type (a backend plugin links its
// own libLLVM, which the dynamic loader matches by soname).
// hmo_add_plugin() (cmake/HmoPlugin.cmake) builds a plugin with the
// framework's assertion and sanitizer settings, so only a plugin built by
// other means can differ there.
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

#if defined(NDEBUG)
#define HMO_FINGERPRINT_ASSERTIONS_ "assertions=off"
#else
#define HMO_FINGERPRINT_ASSERTIONS_ "assertions=on"
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HMO_FINGERPRINT_ASAN_ "1"
#endif
#if __has_feature(thread_sanitizer)
#define HMO_FINGERPRINT_TSAN_ "1"
#endif
#if __has_feature(memory_sanitizer)
#define HMO_FINGERPRINT_MSAN_ "1"
#endif
#endif
#if !defined(HMO_FINGERPRINT_ASAN_) && defined(__SANITIZE_ADDRESS__)
#define HMO_FINGERPRINT_ASAN_ "1"
#endif
#if !defined(HMO_FINGERPRINT_TSAN_) && defined(__SANITIZE_THREAD__)
#define HMO_FINGERPRINT_TSAN_ "1"
#endif
#ifndef HMO_FINGERPRINT_ASAN_
#define HMO_FINGERPRINT_ASAN_ "0"
#endif
#ifndef HMO_FINGERPRINT_TSAN_
#define HMO_FINGERPRINT_TSAN_ "0"
#endif
#ifndef HMO_FINGERPRINT_MSAN_
#define HMO_FINGERPRINT_MSAN_ "0"
#endif
#define HMO_FINGERPRINT_BUILD_                                                              \
  HMO_FINGERPRINT_ASSERTIONS_ " asan=" HMO_FINGERPRINT_ASAN_ " tsan=" HMO_FINGERPRINT_TSAN_ \
                              " msan=" HMO_FINGERPRINT_MSAN_

#define HMO_BUILD_FINGERPRINT                                                                \
  "hmo " HMO_FRAMEWORK_VERSION " headers " HMO_HEADERS_DIGEST "; " HMO_FINGERPRINT_COMPILER_ \
  "; " HMO_FINGERPRINT_STDLIB_ "; " HMO_FINGERPRINT_ABSEIL_ "; " HMO_FINGERPRINT_BUILD_

#endif  // HMO_PLUGIN_BUILD_FINGERPRINT_H_
