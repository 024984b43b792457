#ifndef HMO_SRC_VERIFIER_STR_UTIL_H_
#define HMO_SRC_VERIFIER_STR_UTIL_H_

// The verifier formats messages with the framework's std::string_view-aware
// StrCat (Debian's absl has its own string_view type); one implementation
// lives in src/ir/str_cat.h.

#include "../ir/str_cat.h"

namespace hmo::verifier_internal {

using ::hmo::ir_internal::StrAppend;
using ::hmo::ir_internal::StrCat;

}  // namespace hmo::verifier_internal

#endif  // HMO_SRC_VERIFIER_STR_UTIL_H_
