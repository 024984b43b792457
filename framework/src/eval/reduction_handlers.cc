// reduce and reduce-window, single-input or variadic. Each output element
// folds its input elements, in row-major order of the reduced (or window)
// index, starting from the init value: acc = reducer(acc, x).

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "index_space.h"
#include "opcode_handlers.h"
#include "scalar_combiner.h"

namespace hmo::eval_internal {
namespace {

// The result literal of a (variadic) reduce or reduce-window and pointers to
// its N arrays.
struct ReductionResult {
  Literal value;
  std::vector<Literal*> arrays;
};

ReductionResult MakeReductionResult(const Shape& shape) {
  ReductionResult result{Literal(shape), {}};
  if (shape.IsTuple()) {
    for (Literal& element : *result.value.mutable_tuple_elements()) result.arrays.push_back(&element);
  } else {
    result.arrays.push_back(&result.value);
  }
  return result;
}

}  // namespace

absl::StatusOr<Literal> HandleReduce(const HloInstruction& instr, Operands operands,
                                     const ComputationRunner& run) {
  const int64_t n = operands.size() / 2;
  std::vector<const Literal*> inputs(operands.begin(), operands.begin() + n);
  std::vector<const Literal*> inits(operands.begin() + n, operands.end());
  ReductionResult result = MakeReductionResult(instr.shape());

  const std::vector<int64_t>& in_dims = inputs[0]->shape().dimensions();
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  std::vector<bool> reduced(in_dims.size(), false);
  for (int64_t d : instr.dimensions()) reduced[d] = true;
  // Output index -> input offset (kept dimensions), and the offsets of every
  // element of one reduction (reduced dimensions), in row-major order.
  std::vector<int64_t> kept_dims, kept_strides, reduced_dims, reduced_strides;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    (reduced[d] ? reduced_dims : kept_dims).push_back(in_dims[d]);
    (reduced[d] ? reduced_strides : kept_strides).push_back(in_strides[d]);
  }
  std::vector<int64_t> reduced_offsets;
  reduced_offsets.reserve(ElementCount(reduced_dims));
  ForEachIndex(reduced_dims, [&](absl::Span<const int64_t> index) {
    reduced_offsets.push_back(DotIndex(index, reduced_strides));
  });

  absl::Status status = WithAccumulator(
      *instr.to_apply(), inputs, inits, result.arrays, run, [&](auto& acc) -> absl::Status {
        int64_t out_index = 0;
        absl::Status loop_status;
        ForEachIndex(kept_dims, [&](absl::Span<const int64_t> index) {
          if (!loop_status.ok()) return;
          const int64_t base = DotIndex(index, kept_strides);
          acc.Reset();
          for (int64_t offset : reduced_offsets) {
            loop_status = acc.Add(base + offset);
            if (!loop_status.ok()) return;
          }
          acc.Store(out_index++);
        });
        return loop_status;
      });
  if (!status.ok()) return status;
  return std::move(result.value);
}

absl::StatusOr<Literal> HandleReduceWindow(const HloInstruction& instr, Operands operands,
                                           const ComputationRunner& run) {
  const int64_t n = operands.size() / 2;
  std::vector<const Literal*> inputs(operands.begin(), operands.begin() + n);
  std::vector<const Literal*> inits(operands.begin() + n, operands.end());
  ReductionResult result = MakeReductionResult(instr.shape());
  // No window= is XLA's empty window (scalar operands, checked by the verifier).
  static const Window kNoWindow;
  const std::vector<WindowDimension>& window = (instr.has_window() ? instr.window() : kNoWindow).dimensions;
  if (static_cast<int64_t>(window.size()) != inputs[0]->shape().rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("evaluator: reduce-window ", instr.name(), " has a window of the wrong rank"));
  }
  const std::vector<int64_t>& in_dims = inputs[0]->shape().dimensions();
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<int64_t> window_sizes(rank);
  for (int64_t d = 0; d < rank; ++d) window_sizes[d] = window[d].size;
  const std::vector<int64_t>& out_dims = result.arrays[0]->shape().dimensions();

  absl::Status status = WithAccumulator(
      *instr.to_apply(), inputs, inits, result.arrays, run, [&](auto& acc) -> absl::Status {
        int64_t out_index = 0;
        absl::Status loop_status;
        ForEachIndex(out_dims, [&](absl::Span<const int64_t> out) {
          if (!loop_status.ok()) return;
          acc.Reset();
          ForEachIndex(window_sizes, [&](absl::Span<const int64_t> k) {
            if (!loop_status.ok()) return;
            // Position in the padded, base-dilated input; holes from the
            // dilation and the padding contribute nothing.
            int64_t input_index = 0;
            for (int64_t d = 0; d < rank; ++d) {
              const WindowDimension& w = window[d];
              int64_t position = out[d] * w.stride + k[d] * w.window_dilation - w.padding_low;
              if (position < 0 || position % w.base_dilation != 0) return;
              position /= w.base_dilation;
              if (position >= in_dims[d]) return;
              input_index += position * in_strides[d];
            }
            loop_status = acc.Add(input_index);
          });
          acc.Store(out_index++);
        });
        return loop_status;
      });
  if (!status.ok()) return status;
  return std::move(result.value);
}

}  // namespace hmo::eval_internal
