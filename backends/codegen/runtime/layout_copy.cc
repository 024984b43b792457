#include "hmo/codegen/runtime/layout_copy.h"

#include <cstring>
#include <string>
#include <vector>

#include "hmo/ir/primitive_type.h"

namespace hmo::codegen {
namespace {

// minor_to_major of `shape`, the row-major one when it has no (complete)
// layout.
std::vector<int64_t> MinorToMajor(const Shape& shape) {
  const int64_t rank = static_cast<int64_t>(shape.dimensions().size());
  if (shape.has_layout() && static_cast<int64_t>(shape.layout().minor_to_major().size()) == rank) {
    return shape.layout().minor_to_major();
  }
  std::vector<int64_t> order(rank);
  for (int64_t i = 0; i < rank; ++i) order[i] = rank - 1 - i;
  return order;
}

// For each logical dimension, the stride (in elements) of the buffer.
std::vector<int64_t> BufferStrides(const Shape& shape) {
  const std::vector<int64_t> order = MinorToMajor(shape);
  std::vector<int64_t> strides(shape.dimensions().size(), 1);
  int64_t stride = 1;
  for (int64_t dim : order) {
    strides[dim] = stride;
    stride *= shape.dimensions()[dim];
  }
  return strides;
}

// Calls fn(row_major_index, buffer_index) for every element, walking the
// logical index in row-major order with an odometer.
template <typename Fn>
void ForEachElement(const Shape& shape, Fn fn) {
  const std::vector<int64_t>& dims = shape.dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count == 0) return;
  const std::vector<int64_t> strides = BufferStrides(shape);
  std::vector<int64_t> index(rank, 0);
  int64_t buffer_index = 0;
  for (int64_t linear = 0; linear < count; ++linear) {
    fn(linear, buffer_index);
    for (int64_t d = rank - 1; d >= 0; --d) {
      ++index[d];
      buffer_index += strides[d];
      if (index[d] < dims[d]) break;
      buffer_index -= strides[d] * dims[d];
      index[d] = 0;
    }
  }
}

absl::Status CheckSameArray(const Shape& literal_shape, const Shape& buffer_shape) {
  if (literal_shape.element_type() != buffer_shape.element_type() ||
      literal_shape.dimensions() != buffer_shape.dimensions()) {
    return absl::InvalidArgumentError("literal of shape " + literal_shape.ToString() +
                                      " does not match buffer shape " + buffer_shape.ToString());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> BufferElementBytes(const Shape& array_shape) {
  if (!array_shape.IsArray()) {
    return absl::InvalidArgumentError("not an array shape: " + array_shape.ToString());
  }
  const PrimitiveType type = array_shape.element_type();
  if (primitive_util::IsSubByteType(type)) {
    return absl::UnimplementedError("sub-byte element type in " + array_shape.ToString() +
                                    " is not supported by the CPU backend");
  }
  return primitive_util::ByteWidth(type);
}

absl::Status CopyLiteralToBuffer(const Literal& literal, const Shape& buffer_shape, char* buffer) {
  if (literal.is_elided()) {
    return absl::InvalidArgumentError("literal of shape " + literal.shape().ToString() +
                                      " is elided ({...}); fill it first");
  }
  absl::Status same = CheckSameArray(literal.shape(), buffer_shape);
  if (!same.ok()) return same;
  absl::StatusOr<int64_t> bytes = BufferElementBytes(buffer_shape);
  if (!bytes.ok()) return bytes.status();
  const uint8_t* source = literal.raw_data().data();
  const int64_t width = *bytes;
  ForEachElement(buffer_shape, [&](int64_t linear, int64_t buffer_index) {
    std::memcpy(buffer + buffer_index * width, source + linear * width, width);
  });
  return absl::OkStatus();
}

absl::StatusOr<Literal> LiteralFromBuffer(const Shape& buffer_shape, const char* buffer) {
  absl::StatusOr<int64_t> bytes = BufferElementBytes(buffer_shape);
  if (!bytes.ok()) return bytes.status();
  Shape logical(buffer_shape.element_type(), buffer_shape.dimensions());
  Literal literal(logical);
  uint8_t* destination = literal.mutable_raw_data()->data();
  const int64_t width = *bytes;
  ForEachElement(buffer_shape, [&](int64_t linear, int64_t buffer_index) {
    std::memcpy(destination + linear * width, buffer + buffer_index * width, width);
  });
  return literal;
}

}  // namespace hmo::codegen
