#ifndef HMO_SRC_IR_STR_CAT_H_
#define HMO_SRC_IR_STR_CAT_H_

// absl::StrCat/StrAppend that also take std::string_view: Debian's absl
// has its own string_view type, and hmo's APIs use std::string_view.

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace hmo::ir_internal {

template <typename T>
decltype(auto) AdaptForStrCat(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return absl::string_view(v.data(), v.size());
  } else {
    return (v);
  }
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(AdaptForStrCat(args)...);
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, AdaptForStrCat(args)...);
}

inline absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace hmo::ir_internal

#endif  // HMO_SRC_IR_STR_CAT_H_
