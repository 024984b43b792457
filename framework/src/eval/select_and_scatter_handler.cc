// select-and-scatter (the gradient of a max-pool): the result starts as the
// init value everywhere; for each window position over the operand the
// `select` computation picks one element (scanning the window in order, a
// later element replaces the current pick when select(pick, later) is false)
// and the source element of that position is combined into the result at
// the pick with `scatter`. Padding positions are never picked.

#include <vector>

#include "absl/strings/str_cat.h"
#include "element_copy.h"
#include "element_types.h"
#include "index_space.h"
#include "opcode_handlers.h"
#include "scalar_combiner.h"

namespace hmo::eval_internal {

absl::StatusOr<Literal> HandleSelectAndScatter(const HloInstruction& instr, Operands operands,
                                               const ComputationRunner& run) {
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const Literal& init = *operands[2];
  const std::vector<int64_t>& dims = operand.shape().dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  static const Window kNoWindow;
  const std::vector<WindowDimension>& window = (instr.has_window() ? instr.window() : kNoWindow).dimensions;
  if (static_cast<int64_t>(window.size()) != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("evaluator: select-and-scatter ", instr.name(), " has a window of the wrong rank"));
  }
  const int64_t width = ByteWidth(operand.element_type());
  Literal result(instr.shape());
  for (int64_t i = 0; i < result.element_count(); ++i) {
    CopyElement(RawBytes(init), 0, MutableRawBytes(&result), i, width);
  }
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  const std::vector<int64_t> source_strides = RowMajorStrides(source.shape().dimensions());
  std::vector<int64_t> window_sizes(rank);
  for (int64_t d = 0; d < rank; ++d) window_sizes[d] = window[d].size;
  absl::Status status;
  ForEachIndex(source.shape().dimensions(), [&](absl::Span<const int64_t> position) {
    if (!status.ok()) return;
    int64_t picked = -1;
    Literal picked_value;
    ForEachIndex(window_sizes, [&](absl::Span<const int64_t> offset) {
      if (!status.ok()) return;
      int64_t linear = 0;
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t at = position[d] * window[d].stride + offset[d] * window[d].window_dilation -
                           window[d].padding_low;
        if (at < 0 || at >= dims[d]) return;  // padding
        linear += at * strides[d];
      }
      Literal candidate = ScalarAt(operand, linear);
      if (picked >= 0) {
        absl::StatusOr<Literal> keep = run(*instr.select(), {picked_value, candidate});
        if (!keep.ok()) {
          status = keep.status();
          return;
        }
        if (keep->GetAsBool(0)) return;
      }
      picked = linear;
      picked_value = std::move(candidate);
    });
    if (!status.ok() || picked < 0) return;
    absl::StatusOr<Literal> combined =
        run(*instr.scatter(), {ScalarAt(result, picked), ScalarAt(source, DotIndex(position, source_strides))});
    if (!combined.ok()) {
      status = combined.status();
      return;
    }
    CopyElement(RawBytes(*combined), 0, MutableRawBytes(&result), picked, width);
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace hmo::eval_internal
