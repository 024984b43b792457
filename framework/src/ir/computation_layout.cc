#include "hmo/ir/computation_layout.h"
#include "str_cat.h"

#include "absl/strings/str_cat.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;

std::string ComputationLayout::ToString() const {
  std::string out = "(";
  for (size_t i = 0; i < parameter_shapes_.size(); ++i) {
    if (i > 0) {
      out += ", ";
      if (i % 5 == 0) StrAppend(&out, "/*index=", i, "*/");
    }
    out += parameter_shapes_[i].ToString(true);
  }
  StrAppend(&out, ")->", result_shape_.ToString(true));
  return out;
}

}  // namespace hmo
