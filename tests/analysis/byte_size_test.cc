// Byte sizes as memory limits are written: units, fractions, rounding, and
// the errors (no number, unknown or decimal unit, overflow).

#include "hmo/analysis/byte_size.h"

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo {
namespace {

using ::testing::HasSubstr;

int64_t Bytes(const std::string& text) {
  absl::StatusOr<int64_t> bytes = ParseByteSize(text);
  EXPECT_TRUE(bytes.ok()) << text << ": " << bytes.status();
  return bytes.value_or(-1);
}

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<int64_t> bytes = ParseByteSize(text);
  EXPECT_FALSE(bytes.ok()) << text << " read as " << *bytes;
  return bytes.ok() ? "" : std::string(bytes.status().message());
}

TEST(ByteSizeTest, ReadsBinaryUnits) {
  EXPECT_EQ(Bytes("0"), 0);
  EXPECT_EQ(Bytes("4096"), 4096);
  EXPECT_EQ(Bytes("4096B"), 4096);
  EXPECT_EQ(Bytes("1KiB"), 1024);
  EXPECT_EQ(Bytes("512 MiB"), int64_t{512} << 20);
  EXPECT_EQ(Bytes("80GiB"), int64_t{80} << 30);
  EXPECT_EQ(Bytes("2TiB"), int64_t{2} << 40);
}

TEST(ByteSizeTest, FractionsRoundDown) {
  EXPECT_EQ(Bytes("1.5GiB"), int64_t{3} << 29);
  EXPECT_EQ(Bytes("0.5KiB"), 512);
  EXPECT_EQ(Bytes("1.9999B"), 1);
  EXPECT_EQ(Bytes("0.001KiB"), 1);  // 1.024 bytes
  // A third of a TiB, to the byte: 2^40 / 3 rounded down.
  EXPECT_EQ(Bytes("0.333333333333333333TiB"), 366503875925);
}

TEST(ByteSizeTest, RefusesWhatIsNotASize) {
  EXPECT_THAT(ErrorOf(""), HasSubstr("does not start with a number"));
  EXPECT_THAT(ErrorOf("GiB"), HasSubstr("does not start with a number"));
  EXPECT_THAT(ErrorOf("-1GiB"), HasSubstr("does not start with a number"));
  EXPECT_THAT(ErrorOf("80GB"), HasSubstr("unknown unit 'GB' (B, KiB, MiB, GiB or TiB)"));
  EXPECT_THAT(ErrorOf("80 gib"), HasSubstr("unknown unit 'gib'"));
  EXPECT_THAT(ErrorOf("1e9"), HasSubstr("unknown unit 'e9'"));
  EXPECT_THAT(ErrorOf("9223372036854775808"), HasSubstr("more than 2^63-1 bytes"));
  EXPECT_THAT(ErrorOf("8388608TiB"), HasSubstr("more than 2^63-1 bytes"));
  EXPECT_EQ(Bytes("9223372036854775807"), int64_t{9223372036854775807});
}

TEST(ByteSizeTest, FormatsWithThousandsAndAUnit) {
  EXPECT_EQ(FormatByteSize(512), "512 B");
  EXPECT_EQ(FormatByteSize(62732), "62,732 B (61.26 KiB)");
  EXPECT_EQ(FormatByteSize(int64_t{80} << 30), "85,899,345,920 B (80.00 GiB)");
  EXPECT_EQ(FormatByteSize(-2048), "-2,048 B (-2.00 KiB)");
  EXPECT_EQ(FormatByteSize(INT64_MIN), "-9,223,372,036,854,775,808 B (-8388608.00 TiB)");
}

}  // namespace
}  // namespace hmo
