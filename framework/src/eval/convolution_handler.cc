// convolution with any dimension labels, window (stride, padding, lhs and
// rhs dilation, reversal), feature_group_count and batch_group_count.
//
// The operands are laid out as lhs [batch, spatial..., feature] and rhs
// [spatial..., input feature, output feature] arrays of the accumulation
// type; each output position accumulates a row of all output features, so
// the innermost loop runs over contiguous output features. Semantics follow
// the StableHLO definition of groups: with feature groups, the lhs features
// and the rhs output features are split into that many consecutive groups
// that convolve pairwise; with batch groups, the lhs batch and the rhs output
// features are split the same way.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "accumulation.h"
#include "opcode_handlers.h"
#include "row_kernels.h"

namespace hmo::eval_internal {

absl::StatusOr<Literal> HandleConvolution(const HloInstruction& instr, Operands operands) {
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  if (!instr.has_convolution_dimension_numbers()) {
    return absl::InvalidArgumentError(
        absl::StrCat("evaluator: convolution ", instr.name(), " has no dim_labels"));
  }
  const ConvolutionDimensionNumbers& dn = instr.convolution_dimension_numbers();
  const int64_t spatial_rank = static_cast<int64_t>(dn.input_spatial_dimensions.size());
  std::vector<WindowDimension> window;
  if (instr.has_window()) window = instr.window().dimensions;
  if (static_cast<int64_t>(window.size()) != spatial_rank) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: convolution ", instr.name(),
                                                   " window rank does not match dim_labels"));
  }
  Literal out(instr.shape());

  std::vector<int64_t> lhs_order{dn.input_batch_dimension};
  std::vector<int64_t> rhs_order;
  std::vector<int64_t> out_order{dn.output_batch_dimension};
  std::vector<int64_t> in_spatial(spatial_rank), kernel_spatial(spatial_rank),
      out_spatial(spatial_rank);
  for (int64_t s = 0; s < spatial_rank; ++s) {
    lhs_order.push_back(dn.input_spatial_dimensions[s]);
    rhs_order.push_back(dn.kernel_spatial_dimensions[s]);
    out_order.push_back(dn.output_spatial_dimensions[s]);
    in_spatial[s] = lhs.shape().dimensions(dn.input_spatial_dimensions[s]);
    kernel_spatial[s] = rhs.shape().dimensions(dn.kernel_spatial_dimensions[s]);
    out_spatial[s] = out.shape().dimensions(dn.output_spatial_dimensions[s]);
  }
  lhs_order.push_back(dn.input_feature_dimension);
  rhs_order.push_back(dn.kernel_input_feature_dimension);
  rhs_order.push_back(dn.kernel_output_feature_dimension);
  out_order.push_back(dn.output_feature_dimension);

  const int64_t in_batch = lhs.shape().dimensions(dn.input_batch_dimension);
  const int64_t in_features = lhs.shape().dimensions(dn.input_feature_dimension);
  const int64_t kernel_in_features = rhs.shape().dimensions(dn.kernel_input_feature_dimension);
  const int64_t out_features = rhs.shape().dimensions(dn.kernel_output_feature_dimension);
  const int64_t out_batch = out.shape().dimensions(dn.output_batch_dimension);
  const int64_t feature_groups = instr.feature_group_count();
  const int64_t batch_groups = instr.batch_group_count();
  if (feature_groups < 1 || batch_groups < 1 || in_features % feature_groups != 0 ||
      out_features % feature_groups != 0 || out_features % batch_groups != 0 ||
      in_batch != out_batch * batch_groups || kernel_in_features * feature_groups != in_features) {
    return absl::InvalidArgumentError(absl::StrCat(
        "evaluator: convolution ", instr.name(), " has inconsistent group counts or dimensions"));
  }
  const int64_t out_per_feature_group = out_features / feature_groups;
  const int64_t out_per_batch_group = out_features / batch_groups;

  absl::Status status = SwitchOnAccumulationType(
      out.element_type(), lhs.element_type(), rhs.element_type(), instr.name(), [&](auto zero) {
        using Acc = decltype(zero);
        const std::vector<Acc> a = LoadTransposed<Acc>(lhs, lhs_order);
        const std::vector<Acc> b = LoadTransposed<Acc>(rhs, rhs_order);
        const std::vector<int64_t> a_strides = [&] {
          std::vector<int64_t> dims{in_batch};
          dims.insert(dims.end(), in_spatial.begin(), in_spatial.end());
          dims.push_back(in_features);
          return RowMajorStrides(dims);
        }();
        const std::vector<int64_t> b_spatial_strides = [&] {
          std::vector<int64_t> dims = kernel_spatial;
          dims.push_back(kernel_in_features);
          dims.push_back(out_features);
          return RowMajorStrides(dims);
        }();
        const int64_t positions = ElementCount(out_spatial);
        const std::vector<int64_t> out_spatial_strides = RowMajorStrides(out_spatial);
        // The result as [batch, position, feature]: each output position
        // accumulates a row of all output features.
        std::vector<Acc> c(static_cast<size_t>(out_batch * positions * out_features), Acc{0});
        // Output positions go in blocks that share each weight row while it
        // is in cache (large 1x1 convolutions are otherwise memory bound).
        constexpr int64_t kBlock = 16;
        int64_t a_offsets[kBlock];  // lhs spatial offset per position, -1 when outside.
        for (int64_t ob = 0; ob < out_batch; ++ob) {
          for (int64_t p0 = 0; p0 < positions; p0 += kBlock) {
            const int64_t block = std::min(kBlock, positions - p0);
            Acc* rows = c.data() + (ob * positions + p0) * out_features;
            ForEachIndex(kernel_spatial, [&](absl::Span<const int64_t> k) {
              int64_t b_offset = 0;
              for (int64_t s = 0; s < spatial_rank; ++s) {
                const WindowDimension& w = window[s];
                const int64_t kernel_index = w.window_reversal ? w.size - 1 - k[s] : k[s];
                b_offset += kernel_index * b_spatial_strides[s];
              }
              bool any_inside = false;
              for (int64_t p = 0; p < block; ++p) {
                int64_t a_spatial = 0;
                bool inside = true;
                for (int64_t s = 0; s < spatial_rank && inside; ++s) {
                  const WindowDimension& w = window[s];
                  const int64_t o = ((p0 + p) / out_spatial_strides[s]) % out_spatial[s];
                  // Position in the padded, lhs-dilated input; dilation
                  // holes and padding contribute zero.
                  int64_t position = o * w.stride + k[s] * w.window_dilation - w.padding_low;
                  if (position < 0 || position % w.base_dilation != 0) {
                    inside = false;
                    break;
                  }
                  position /= w.base_dilation;
                  if (position >= in_spatial[s]) inside = false;
                  a_spatial += position * a_strides[s + 1];
                }
                a_offsets[p] = inside ? a_spatial : -1;
                any_inside |= inside;
              }
              if (!any_inside) return;
              if (batch_groups == 1 && kernel_in_features == 1 && out_per_feature_group == 1) {
                // Depthwise: output feature g is input feature g times its
                // own kernel tap, a loop the compiler vectorizes.
                const Acc* w_row = b.data() + b_offset;
                for (int64_t p = 0; p < block; ++p) {
                  if (a_offsets[p] < 0) continue;
                  const Acc* x = a.data() + ob * a_strides[0] + a_offsets[p];
                  Acc* row = rows + p * out_features;
                  AccumulateProductRow(row, x, w_row, out_features);
                }
                return;
              }
              for (int64_t bg = 0; bg < batch_groups; ++bg) {
                const int64_t a_batch = (bg * out_batch + ob) * a_strides[0];
                for (int64_t fg = 0; fg < feature_groups; ++fg) {
                  const int64_t o_begin = std::max(bg * out_per_batch_group, fg * out_per_feature_group);
                  const int64_t o_end =
                      std::min((bg + 1) * out_per_batch_group, (fg + 1) * out_per_feature_group);
                  if (o_begin >= o_end) continue;
                  for (int64_t i = 0; i < kernel_in_features; ++i) {
                    const Acc* w_row = b.data() + b_offset + i * out_features;
                    const int64_t feature = fg * kernel_in_features + i;
                    for (int64_t p = 0; p < block; ++p) {
                      if (a_offsets[p] < 0) continue;
                      const Acc x = a[a_batch + a_offsets[p] + feature];
                      Acc* row = rows + p * out_features;
                      AccumulateScaledRow(row + o_begin, w_row + o_begin, x, o_end - o_begin);
                    }
                  }
                }
              }
            });
          }
        }
        StoreTransposed<Acc>(c, out_order, &out);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return out;
}

}  // namespace hmo::eval_internal
