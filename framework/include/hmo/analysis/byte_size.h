#ifndef HMO_ANALYSIS_BYTE_SIZE_H_
#define HMO_ANALYSIS_BYTE_SIZE_H_

// Byte sizes as users write them for memory limits: a non-negative integer
// or decimal number with an optional binary unit, "80GiB", "512 MiB",
// "1.5GiB", "4096" or "4096B". Units: B, KiB, MiB, GiB, TiB (powers of 1024;
// decimal KB/MB/GB are refused as ambiguous). A fractional byte count is
// rounded down.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hmo {

// Errors (InvalidArgument) name the text and what is wrong with it: no
// number, an unknown unit, or a size above 2^63-1 bytes.
absl::StatusOr<int64_t> ParseByteSize(std::string_view text);

// "81,604,378,624 B (76.00 GiB)"; below 1 KiB only "512 B".
std::string FormatByteSize(int64_t bytes);

}  // namespace hmo

#endif  // HMO_ANALYSIS_BYTE_SIZE_H_
