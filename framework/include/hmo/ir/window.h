#ifndef HMO_IR_WINDOW_H_
#define HMO_IR_WINDOW_H_

// Windows (convolution, reduce-window, select-and-scatter) and padding
// configurations (pad), with their HLO text forms.

#include <cstdint>
#include <string>
#include <vector>

namespace hmo {

// One dimension of a window. Text fields: size, stride, pad (low_high),
// lhs_dilate (base_dilation), rhs_dilate (window_dilation), rhs_reversal.
struct WindowDimension {
  int64_t size = 0;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;
  int64_t base_dilation = 1;
  bool window_reversal = false;

  bool operator==(const WindowDimension&) const = default;
};

struct Window {
  std::vector<WindowDimension> dimensions;

  // "size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1 rhs_dilate=1x1
  // rhs_reversal=0x1", each field after size only when some dimension differs
  // from the default. Without the surrounding `window={}`.
  std::string ToString() const;

  bool operator==(const Window&) const = default;
};

// Padding of one dimension for `pad`: low/high edge padding (may be
// negative) and interior padding between elements.
struct PaddingConfigDimension {
  int64_t edge_padding_low = 0;
  int64_t edge_padding_high = 0;
  int64_t interior_padding = 0;

  bool operator==(const PaddingConfigDimension&) const = default;
};

struct PaddingConfig {
  std::vector<PaddingConfigDimension> dimensions;

  // "0_5x1_1_2": low_high per dimension joined by 'x'; every dimension gets a
  // third "_interior" field when any interior padding is non-zero.
  std::string ToString() const;

  bool operator==(const PaddingConfig&) const = default;
};

}  // namespace hmo

#endif  // HMO_IR_WINDOW_H_
