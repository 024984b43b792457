#ifndef HMO_PLUGIN_ABI_STATUS_H_
#define HMO_PLUGIN_ABI_STATUS_H_

// Carrying absl::Status across the C ABI: a status code plus a message in a
// caller-owned buffer, never an exception.

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "hmo/plugin/abi_base.h"

namespace hmo {

// Returns the absl::Status for `code` and `message` (OK for kHmoOk; an unknown
// code becomes kUnknown, keeping the message).
absl::Status StatusFromAbi(HmoStatusCode code, std::string_view message);

// The message a plugin wrote into a `capacity`-byte buffer: up to its NUL,
// or the whole buffer when the plugin wrote none (never read past it).
std::string_view AbiMessage(const char* buffer, size_t capacity);

// Returns the code for `status` and writes its message into `message`
// (`capacity` bytes, truncated, NUL-terminated).
HmoStatusCode StatusToAbi(const absl::Status& status, char* message, size_t capacity);

// Calls `fn` (returning absl::Status) and reports its result the C ABI way. An
// exception escaping `fn` becomes kInternal with the exception's text, so it
// never crosses the boundary.
template <typename Fn>
HmoStatusCode CallReturningAbiStatus(Fn&& fn, char* message, size_t capacity) noexcept {
  try {
    return StatusToAbi(fn(), message, capacity);
  } catch (const std::exception& e) {
    return hmoSetMessage(kHmoInternal, e.what(), message, capacity);
  } catch (...) {
    return hmoSetMessage(kHmoInternal, "unknown C++ exception", message, capacity);
  }
}

}  // namespace hmo

#endif  // HMO_PLUGIN_ABI_STATUS_H_
