#include "hmo/analysis/byte_size.h"

#include <array>
#include <cctype>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hmo {
namespace {

struct ByteUnit {
  std::string_view name;
  int shift;  // the unit is 2^shift bytes
};

constexpr std::array<ByteUnit, 6> kUnits = {
    {{"", 0}, {"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}}};

absl::Status BadSize(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("invalid byte size '",
                                                 absl::string_view(text.data(), text.size()),
                                                 "': ", absl::string_view(why.data(), why.size()),
                                                 " (write e.g. 80GiB, 512MiB, 1.5GiB or 4096)"));
}

}  // namespace

absl::StatusOr<int64_t> ParseByteSize(std::string_view text) {
  size_t i = 0;
  // Digits before and after an optional decimal point, read exactly.
  int64_t whole = 0;
  bool any_digit = false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const int digit = text[i] - '0';
    if (whole > (std::numeric_limits<int64_t>::max() - digit) / 10) {
      return BadSize(text, "more than 2^63-1 bytes");
    }
    whole = whole * 10 + digit;
    any_digit = true;
    ++i;
  }
  // The fraction as numerator / 10^k, at most 18 digits (more cannot matter
  // below the TiB unit's 2^40 resolution).
  int64_t fraction = 0;
  int64_t denominator = 1;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (denominator < 1'000'000'000'000'000'000) {
        fraction = fraction * 10 + (text[i] - '0');
        denominator *= 10;
      }
      any_digit = true;
      ++i;
    }
  }
  if (!any_digit) return BadSize(text, "it does not start with a number");
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string_view unit_text = text.substr(i);
  const ByteUnit* unit = nullptr;
  for (const ByteUnit& candidate : kUnits) {
    if (candidate.name == unit_text) unit = &candidate;
  }
  if (unit == nullptr) {
    return BadSize(
        text, absl::StrCat("unknown unit '", absl::string_view(unit_text.data(), unit_text.size()),
                           "' (B, KiB, MiB, GiB or TiB)"));
  }
  const int64_t scale = int64_t{1} << unit->shift;
  if (whole > std::numeric_limits<int64_t>::max() / scale) {
    return BadSize(text, "more than 2^63-1 bytes");
  }
  // fraction / denominator * scale, rounded down: scale <= 2^40 and
  // fraction < 10^18, so the product is split to stay within 128 bits.
  const __int128 fractional_bytes = static_cast<__int128>(fraction) * scale / denominator;
  const __int128 bytes = static_cast<__int128>(whole) * scale + fractional_bytes;
  if (bytes > std::numeric_limits<int64_t>::max()) return BadSize(text, "more than 2^63-1 bytes");
  return static_cast<int64_t>(bytes);
}

std::string FormatByteSize(int64_t bytes) {
  // The magnitude as unsigned: -INT64_MIN does not fit an int64_t.
  const uint64_t magnitude =
      bytes < 0 ? uint64_t{0} - static_cast<uint64_t>(bytes) : static_cast<uint64_t>(bytes);
  // Digits grouped by thousands.
  const std::string digits = absl::StrCat(magnitude);
  std::string grouped = bytes < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(digits[i]);
  }
  if (magnitude < 1024) return absl::StrCat(grouped, " B");
  int shift = 10;
  while (shift < 40 && magnitude >= (uint64_t{1} << (shift + 10))) shift += 10;
  const std::string_view name = shift == 10   ? "KiB"
                                : shift == 20 ? "MiB"
                                : shift == 30 ? "GiB"
                                              : "TiB";
  return absl::StrFormat("%s B (%.2f %s)", grouped,
                         static_cast<double>(bytes) / static_cast<double>(uint64_t{1} << shift),
                         std::string(name));
}

}  // namespace hmo
