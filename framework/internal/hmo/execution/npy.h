#ifndef HMO_EXECUTION_NPY_H_
#define HMO_EXECUTION_NPY_H_

// NumPy's .npy format, for the arguments and results of `hmo run --execute`.
//
// Reads format versions 1, 2 and 3 (the header length is 2 bytes in v1, 4 in
// v2/v3), little-endian data ('<' or '|', or '=' on this little-endian host),
// C order. A file with fortran_order True, a big-endian or structured dtype,
// or a dtype hmo has no element type for is an error naming the file.
//
// dtypes and element types:
//   |b1 pred   |i1 s8   <i2 s16   <i4 s32   <i8 s64
//   |u1 u8     <u2 u16  <u4 u32   <u8 u64
//   <f2 f16    <f4 f32  <f8 f64   <c8 c64   <c16 c128
// Element types NumPy has no dtype for are written widened to the smallest
// dtype above that holds every value exactly: bf16 and the f8/f4 formats as
// '<f4', s2/s4 as '|i1', u2/u4 as '|u1'. The header then carries a Python
// comment after the dict, "# hmo: element type bf16", which numpy ignores
// and ReadNpy uses to narrow the data back, so the round trip is exact.
//
// Writes version 1 (version 2 only when the header does not fit in 64 KiB),
// with the header padded so that the data starts at a multiple of 64 bytes,
// as numpy does.

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/ir/literal.h"
#include "hmo/ir/shape.h"

namespace hmo {

// Parses the bytes of a .npy file. `source` names them in error messages
// (a file path, or e.g. "<memory>"). Returns InvalidArgument for a malformed
// or truncated file (naming `source` and what is wrong) and Unimplemented for
// a well-formed file hmo cannot represent (fortran order, big-endian,
// structured or unknown dtypes). The literal's shape has no layout.
absl::StatusOr<Literal> ParseNpy(std::string_view bytes, std::string_view source = "<memory>");

// The bytes of a .npy file holding `literal` (an array literal with values;
// a tuple, token or elided literal is InvalidArgument).
absl::StatusOr<std::string> SerializeNpy(const Literal& literal);

// Reads and parses the file at `path`; NotFound when it cannot be read.
absl::StatusOr<Literal> ReadNpyFile(const std::string& path);

// Writes `literal` to `path`: first to a temporary file beside it, then
// renamed over `path`, so that on error no partial (or old-and-new mixed)
// file is left behind.
absl::Status WriteNpyFile(const std::string& path, const Literal& literal);

// Converts `literal` (as read from `source`) to `shape`: the dimensions must
// be equal; the element type is converted when the conversion is lossless
// (e.g. s8 -> s32, u16 -> f32, s32 -> f64, f16 -> f32, pred -> any number) or
// stays within one kind (float -> narrower float, rounding to nearest-even;
// signed -> narrower signed, unsigned -> narrower unsigned, each value must
// fit). Anything else (e.g. f32 -> s32, s64 -> f32) is InvalidArgument naming
// `source`, the expected and the found dtype and shape. The result has
// `shape` (including its layout; the values stay row-major).
absl::StatusOr<Literal> ConvertLiteralForShape(const Literal& literal, const Shape& shape,
                                               std::string_view source);

// ReadNpyFile then ConvertLiteralForShape with the path as `source`.
absl::StatusOr<Literal> ReadNpyFileAs(const std::string& path, const Shape& shape);

// The numpy dtype string ("<f4", "|b1") a literal of `type` is written with,
// and whether it is widened (see above). InvalidArgument for token, tuple,
// opaque and invalid types.
struct NpyDtype {
  std::string descr;
  bool widened = false;
};
absl::StatusOr<NpyDtype> NpyDtypeFor(PrimitiveType type);

}  // namespace hmo

#endif  // HMO_EXECUTION_NPY_H_
