#include "hmo/ir/window.h"
#include "str_cat.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;

std::string Window::ToString() const {
  auto join = [&](auto field) {
    std::vector<std::string> parts;
    for (const WindowDimension& d : dimensions) parts.push_back(field(d));
    return absl::StrJoin(parts, "x");
  };
  auto any = [&](auto pred) {
    for (const WindowDimension& d : dimensions) {
      if (pred(d)) return true;
    }
    return false;
  };
  std::string out;
  if (dimensions.empty()) return out;
  StrAppend(&out, "size=", join([](const WindowDimension& d) { return StrCat(d.size); }));
  if (any([](const WindowDimension& d) { return d.stride != 1; })) {
    StrAppend(&out, " stride=", join([](const WindowDimension& d) { return StrCat(d.stride); }));
  }
  if (any([](const WindowDimension& d) { return d.padding_low != 0 || d.padding_high != 0; })) {
    StrAppend(&out, " pad=", join([](const WindowDimension& d) {
                      return StrCat(d.padding_low, "_", d.padding_high);
                    }));
  }
  if (any([](const WindowDimension& d) { return d.base_dilation != 1; })) {
    StrAppend(&out, " lhs_dilate=",
                    join([](const WindowDimension& d) { return StrCat(d.base_dilation); }));
  }
  if (any([](const WindowDimension& d) { return d.window_dilation != 1; })) {
    StrAppend(&out, " rhs_dilate=",
                    join([](const WindowDimension& d) { return StrCat(d.window_dilation); }));
  }
  if (any([](const WindowDimension& d) { return d.window_reversal; })) {
    StrAppend(&out, " rhs_reversal=",
                    join([](const WindowDimension& d) { return std::string(d.window_reversal ? "1" : "0"); }));
  }
  return out;
}

std::string PaddingConfig::ToString() const {
  bool interior = false;
  for (const PaddingConfigDimension& d : dimensions) interior |= d.interior_padding != 0;
  std::vector<std::string> parts;
  for (const PaddingConfigDimension& d : dimensions) {
    std::string s = StrCat(d.edge_padding_low, "_", d.edge_padding_high);
    if (interior) StrAppend(&s, "_", d.interior_padding);
    parts.push_back(std::move(s));
  }
  return absl::StrJoin(parts, "x");
}

}  // namespace hmo
