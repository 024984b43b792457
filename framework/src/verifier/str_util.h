#ifndef HMO_SRC_VERIFIER_STR_UTIL_H_
#define HMO_SRC_VERIFIER_STR_UTIL_H_

// StrCat/StrAppend that accept std::string_view: Debian's absl 20220623 has
// its own string_view type, while hmo's APIs use std::string_view.

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace hmo::verifier_internal {

template <typename T>
decltype(auto) ForStrCat(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return absl::string_view(v.data(), v.size());
  } else {
    return (v);
  }
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(ForStrCat(args)...);
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, ForStrCat(args)...);
}

}  // namespace hmo::verifier_internal

#endif  // HMO_SRC_VERIFIER_STR_UTIL_H_
