#ifndef HMO_PLUGIN_ABI_BASE_H_
#define HMO_PLUGIN_ABI_BASE_H_

/* What both of hmo's C ABIs (plugin_abi.h and scheduler_strategy_abi.h)
 * share: the status codes that carry errors across a shared-object boundary,
 * the macro that exports a plugin's entry point, and a helper for writing an
 * error message into a host-owned buffer.
 *
 * This header is C (C99 and later) and C++. Errors cross the boundary only as
 * an HmoStatusCode plus a message; a C++ exception must never escape a
 * callback. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The numeric values follow absl::StatusCode, so the host maps them 1:1. A
 * plugin may return any of them; kHmoOk (0) is success. Values are part of the
 * ABI and never change. */
typedef int32_t HmoStatusCode;
enum {
  kHmoOk = 0,
  kHmoCancelled = 1,
  kHmoUnknown = 2,
  kHmoInvalidArgument = 3,
  kHmoNotFound = 5,
  kHmoAlreadyExists = 6,
  kHmoFailedPrecondition = 9,
  kHmoOutOfRange = 11,
  kHmoUnimplemented = 12,
  kHmoInternal = 13
};

/* The size of every message buffer the host passes to a plugin. */
#define HMO_MESSAGE_CAPACITY 1024

/* Marks the one symbol a plugin exports. Plugins are built with hidden
 * visibility, so everything else stays private to the shared object. In C++
 * the macro also gives the symbol C linkage (an unmangled name). */
#if defined(_WIN32)
#define HMO_ABI_VISIBLE __declspec(dllexport)
#else
#define HMO_ABI_VISIBLE __attribute__((visibility("default")))
#endif
#ifdef __cplusplus
#define HMO_PLUGIN_EXPORT extern "C" HMO_ABI_VISIBLE
#else
#define HMO_PLUGIN_EXPORT HMO_ABI_VISIBLE
#endif

/* Copies the NUL-terminated `text` into the host-owned buffer `message` of
 * `capacity` bytes, truncating and always NUL-terminating (when capacity > 0).
 * Callbacks use it to explain a non-OK status. Returns `code`, so a callback
 * can write `return hmoSetMessage(kHmoInvalidArgument, text, message, cap);`. */
static inline HmoStatusCode hmoSetMessage(HmoStatusCode code, const char* text,
                                          char* message, size_t capacity) {
  size_t i = 0;
  if (message == NULL || capacity == 0) return code;
  if (text != NULL) {
    for (; i + 1 < capacity && text[i] != '\0'; ++i) message[i] = text[i];
  }
  message[i] = '\0';
  return code;
}

/* Whether the NUL-terminated strings `a` and `b` are equal (what the option
 * lookups of the C ABIs compare keys with; no libc needed). */
static inline int hmoStringsEqual(const char* a, const char* b) {
  size_t i = 0;
  for (; a[i] != '\0' && a[i] == b[i]; ++i) {
  }
  return a[i] == b[i];
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* HMO_PLUGIN_ABI_BASE_H_ */
