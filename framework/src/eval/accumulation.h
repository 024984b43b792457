#ifndef HMO_EVAL_ACCUMULATION_H_
#define HMO_EVAL_ACCUMULATION_H_

// Shared by dot and convolution: the type their sums accumulate in, and
// moving operands into / results out of plain arrays of that type in a
// chosen dimension order, so the inner loops run on contiguous raw memory.
//
// Accumulation type: f64 when the result or an operand is f64, f32 for every
// other float (f16/bf16 results round once, at the end), and wrapping 64-bit
// integers for integer results (truncating to the result width afterwards
// gives the same value as wrapping in that width all along).

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "element_types.h"
#include "elementwise_semantics.h"
#include "index_space.h"

namespace hmo::eval_internal {

// Calls fn(Acc{}) with the accumulation type (float, double or uint64_t) of
// a dot/convolution with the given element types.
template <typename Fn>
absl::Status SwitchOnAccumulationType(PrimitiveType result, PrimitiveType lhs, PrimitiveType rhs,
                                      std::string_view name, Fn&& fn) {
  for (PrimitiveType type : {result, lhs, rhs}) {
    if (!IsEvaluatorElementType(type) || type == PrimitiveType::PRED) {
      return UnsupportedElementType(type, name);
    }
  }
  if (primitive_util::IsFloatingPointType(result)) {
    if (result == PrimitiveType::F64 || lhs == PrimitiveType::F64 || rhs == PrimitiveType::F64) {
      return fn(double{});
    }
    return fn(float{});
  }
  if (primitive_util::IsFloatingPointType(lhs) || primitive_util::IsFloatingPointType(rhs)) {
    return absl::UnimplementedError(
        absl::StrCat("evaluator: integer result from float operands in ", std::string(name)));
  }
  return fn(uint64_t{});
}

// The elements of `literal` as Acc, transposed so that dimension i of the
// returned row-major array is dimension order[i] of the literal.
template <typename Acc>
std::vector<Acc> LoadTransposed(const Literal& literal, absl::Span<const int64_t> order) {
  const std::vector<int64_t>& dims = literal.shape().dimensions();
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> new_dims(order.size()), new_to_old(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    new_dims[i] = dims[order[i]];
    new_to_old[i] = strides[order[i]];
  }
  std::vector<Acc> values;
  values.reserve(literal.element_count());
  const uint8_t* src = RawBytes(literal);
  (void)SwitchOnElementType(literal.element_type(), "accumulation", [&](auto tag) {
    constexpr PrimitiveType kT = decltype(tag)::value;
    ForEachRow(new_dims, new_to_old, [&](int64_t offset, int64_t, int64_t length, int64_t step) {
      for (int64_t j = 0; j < length; ++j) {
        auto x = LoadElement<kT>(src, offset + j * step);
        if constexpr (std::is_same_v<Acc, uint64_t>) {
          // Sign-extend signed integers so that wrapping sums stay exact.
          values.push_back(static_cast<uint64_t>(static_cast<int64_t>(x)));
        } else {
          values.push_back(static_cast<Acc>(x));
        }
      }
    });
    return absl::OkStatus();
  });
  return values;
}

// Stores `values` (row-major over `value_dims`, whose dimension i is
// dimension order[i] of `out`) into `out`, converting to its element type.
template <typename Acc>
void StoreTransposed(const std::vector<Acc>& values, absl::Span<const int64_t> order,
                     Literal* out) {
  const std::vector<int64_t>& dims = out->shape().dimensions();
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> value_dims(order.size()), value_to_out(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    value_dims[i] = dims[order[i]];
    value_to_out[i] = strides[order[i]];
  }
  uint8_t* dst = MutableRawBytes(out);
  (void)SwitchOnElementType(out->element_type(), "accumulation", [&](auto tag) {
    constexpr PrimitiveType kT = decltype(tag)::value;
    ForEachRow(value_dims, value_to_out,
               [&](int64_t offset, int64_t position, int64_t length, int64_t step) {
                 for (int64_t j = 0; j < length; ++j) {
                   StoreElement<kT>(dst, offset + j * step,
                                    ConvertElement<NativeOf<kT>, Acc>(values[position + j]));
                 }
               });
    return absl::OkStatus();
  });
}

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_ACCUMULATION_H_
