// Literals are row-major; buffers follow the shape's layout. These tests pin
// where each element lands for non-default layouts.

#include "hmo/codegen/runtime/layout_copy.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace hmo::cpu {
namespace {

Literal Iota2x3() {
  return Literal::CreateR1FromInts(PrimitiveType::S32, {0, 1, 2, 3, 4, 5});
}

Literal Reshaped(const Literal& flat, const Shape& shape) {
  Literal literal(Shape(shape.element_type(), shape.dimensions()));
  *literal.mutable_raw_data() = flat.raw_data();
  return literal;
}

std::vector<int32_t> Ints(const std::vector<char>& buffer) {
  std::vector<int32_t> values(buffer.size() / 4);
  std::memcpy(values.data(), buffer.data(), buffer.size());
  return values;
}

TEST(LayoutCopyTest, RowMajorLayoutKeepsOrder) {
  const Shape shape(PrimitiveType::S32, {2, 3}, Layout({1, 0}));
  std::vector<char> buffer(24);
  ASSERT_TRUE(codegen::CopyLiteralToBuffer(Reshaped(Iota2x3(), shape), shape, buffer.data()).ok());
  EXPECT_EQ(Ints(buffer), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(LayoutCopyTest, ColumnMajorLayoutTransposesStorage) {
  // {0,1}: dimension 0 is minor, so element (i, j) is at j * 2 + i.
  const Shape shape(PrimitiveType::S32, {2, 3}, Layout({0, 1}));
  std::vector<char> buffer(24);
  ASSERT_TRUE(codegen::CopyLiteralToBuffer(Reshaped(Iota2x3(), shape), shape, buffer.data()).ok());
  EXPECT_EQ(Ints(buffer), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  absl::StatusOr<Literal> back = codegen::LiteralFromBuffer(shape, buffer.data());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->raw_data(), Iota2x3().raw_data());
}

TEST(LayoutCopyTest, ThreeDimensionalPermutedLayoutRoundTrips) {
  const Shape shape(PrimitiveType::F32, {2, 3, 4}, Layout({1, 2, 0}));
  Literal literal(Shape(PrimitiveType::F32, {2, 3, 4}));
  for (int64_t i = 0; i < 24; ++i) literal.SetFromDouble(i, static_cast<double>(i) * 0.5);
  std::vector<char> buffer(96);
  ASSERT_TRUE(codegen::CopyLiteralToBuffer(literal, shape, buffer.data()).ok());
  // Element (0, 1, 0) (row-major 4) is at stride of dimension 1 = 1.
  float second;
  std::memcpy(&second, buffer.data() + 4, 4);
  EXPECT_EQ(second, 2.0f);
  absl::StatusOr<Literal> back = codegen::LiteralFromBuffer(shape, buffer.data());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, literal);
}

TEST(LayoutCopyTest, MismatchedShapeIsAnError) {
  const Shape shape(PrimitiveType::S32, {3, 2}, Layout({1, 0}));
  std::vector<char> buffer(24);
  absl::Status status = codegen::CopyLiteralToBuffer(
      Reshaped(Iota2x3(), Shape(PrimitiveType::S32, {2, 3})), shape, buffer.data());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("s32[3,2]"), std::string::npos) << status;
}

TEST(LayoutCopyTest, ElidedLiteralIsAnError) {
  const Shape shape(PrimitiveType::F32, {4}, Layout({0}));
  std::vector<char> buffer(16);
  absl::Status status =
      codegen::CopyLiteralToBuffer(Literal::CreateElided(shape), shape, buffer.data());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hmo::cpu
