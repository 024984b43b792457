#ifndef HMO_EVAL_INDEX_SPACE_H_
#define HMO_EVAL_INDEX_SPACE_H_

// Walking the index space of an array shape in row-major order, and turning
// multi-dimensional indices into the linear (row-major) element positions a
// Literal stores its elements at.

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace hmo::eval_internal {

// Row-major strides of `dims`: stride[d] = product of dims[d+1..].
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);

// Number of elements of an array with `dims` (1 for rank 0).
int64_t ElementCount(absl::Span<const int64_t> dims);

// Calls fn(index) for every multi-dimensional index of `dims` in row-major
// order (the last dimension fastest); `index` is a span of rank entries that
// is only valid during the call. Nothing is called when a dimension is 0;
// fn is called once with an empty index for rank 0.
template <typename Fn>
void ForEachIndex(absl::Span<const int64_t> dims, Fn&& fn) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(dims.size(), 0);
  const int64_t rank = static_cast<int64_t>(dims.size());
  while (true) {
    fn(absl::Span<const int64_t>(index));
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Walks the row-major index space of `dims` one innermost row at a time:
// calls fn(offset, position, length, step) for every index of the leading
// dimensions, where `position` is the row-major position of the row's first
// element, `offset` = sum over leading d of index[d] * strides[d], and each
// of the row's `length` elements advances `offset` by `step` (the last
// stride). Data-movement loops use it to keep their inner loop free of
// multi-dimensional index arithmetic. Rank 0: one row of length 1.
template <typename Fn>
void ForEachRow(absl::Span<const int64_t> dims, absl::Span<const int64_t> strides, Fn&& fn) {
  if (dims.empty()) {
    fn(int64_t{0}, int64_t{0}, int64_t{1}, int64_t{0});
    return;
  }
  const int64_t length = dims.back();
  const int64_t step = strides.back();
  int64_t position = 0;
  ForEachIndex(dims.subspan(0, dims.size() - 1), [&](absl::Span<const int64_t> outer) {
    int64_t offset = 0;
    for (size_t d = 0; d < outer.size(); ++d) offset += outer[d] * strides[d];
    fn(offset, position, length, step);
    position += length;
  });
}

// Sum of index[d] * strides[d].
inline int64_t DotIndex(absl::Span<const int64_t> index, absl::Span<const int64_t> strides) {
  int64_t linear = 0;
  for (size_t d = 0; d < index.size(); ++d) linear += index[d] * strides[d];
  return linear;
}

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_INDEX_SPACE_H_
