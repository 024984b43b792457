#include "hmo/plugin/abi_status.h"

#include <cstring>
#include <string>

namespace hmo {

absl::Status StatusFromAbi(HmoStatusCode code, std::string_view message) {
  if (code == kHmoOk) return absl::OkStatus();
  const bool known = code > 0 && code <= static_cast<int>(absl::StatusCode::kUnauthenticated);
  return absl::Status(known ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kUnknown,
                      std::string(message));
}

std::string_view AbiMessage(const char* buffer, size_t capacity) {
  if (buffer == nullptr) return {};
  return std::string_view(buffer, ::strnlen(buffer, capacity));
}

HmoStatusCode StatusToAbi(const absl::Status& status, char* message, size_t capacity) {
  const std::string text(status.message());
  return hmoSetMessage(static_cast<HmoStatusCode>(status.code()), text.c_str(), message,
                       capacity);
}

}  // namespace hmo
