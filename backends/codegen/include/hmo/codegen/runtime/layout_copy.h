#ifndef HMO_CODEGEN_RUNTIME_LAYOUT_COPY_H_
#define HMO_CODEGEN_RUNTIME_LAYOUT_COPY_H_

// Conversions between Literals (row-major by logical index) and buffers laid
// out by an array shape's layout (minor_to_major; row-major when absent).

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/ir/literal.h"
#include "hmo/ir/shape.h"

namespace hmo::codegen {

// Bytes of one element in a buffer; Unimplemented for sub-byte and
// non-array types.
absl::StatusOr<int64_t> BufferElementBytes(const Shape& array_shape);

// Writes the array literal `literal` into `buffer` laid out as
// `buffer_shape` (same element type and dimensions).
absl::Status CopyLiteralToBuffer(const Literal& literal, const Shape& buffer_shape, char* buffer);

// Reads an array of `buffer_shape` from `buffer` into a row-major literal.
absl::StatusOr<Literal> LiteralFromBuffer(const Shape& buffer_shape, const char* buffer);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_RUNTIME_LAYOUT_COPY_H_
