// .npy reading and writing: round trips per element type, files numpy wrote,
// and the errors for files hmo cannot or must not read.

#include "hmo/execution/npy.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/execution/random_literals.h"

namespace hmo {
namespace {

using ::testing::HasSubstr;

// The bytes numpy 2.4 np.save writes for np.array([[1.5, -2], [0.25, 3]],
// dtype='<f4'): version 1.0, header length 0x76, dict padded with spaces to
// a 128-byte prefix, then the little-endian data.
std::string NumpyF32File() {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  std::string bytes("\x93NUMPY\x01\x00\x76\x00", 10);
  bytes += dict + std::string(0x76 - dict.size() - 1, ' ') + "\n";
  bytes += std::string("\x00\x00\xc0\x3f\x00\x00\x00\xc0\x00\x00\x80\x3e\x00\x00\x40\x40", 16);
  return bytes;
}

TEST(NpyTest, ReadsWhatNumpyWrites) {
  const std::string bytes = NumpyF32File();
  ASSERT_EQ(bytes.size(), 144u);  // np.save's file size
  absl::StatusOr<Literal> literal = ParseNpy(bytes, "a.npy");
  ASSERT_TRUE(literal.ok()) << literal.status();
  EXPECT_EQ(literal->shape().ToString(false), "f32[2,2]");
  EXPECT_EQ(literal->GetAsDouble(0), 1.5);
  EXPECT_EQ(literal->GetAsDouble(1), -2);
  EXPECT_EQ(literal->GetAsDouble(2), 0.25);
  EXPECT_EQ(literal->GetAsDouble(3), 3);
}

TEST(NpyTest, ReadsNumpyBoolAndScalarAndHalf) {
  const auto file = [](std::string dict, std::string data) {
    std::string bytes("\x93NUMPY\x01\x00\x76\x00", 10);
    return bytes + dict + std::string(0x76 - dict.size() - 1, ' ') + "\n" + data;
  };
  absl::StatusOr<Literal> pred =
      ParseNpy(file("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                    std::string("\x01\x00\x01", 3)));
  ASSERT_TRUE(pred.ok()) << pred.status();
  EXPECT_EQ(pred->shape().ToString(false), "pred[3]");
  EXPECT_EQ(pred->ToStringWithoutShape(), "{true, false, true}");
  absl::StatusOr<Literal> scalar =
      ParseNpy(file("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                    std::string("\x07\x00\x00\x00\x00\x00\x00\x00", 8)));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->shape().ToString(false), "s64[]");
  EXPECT_EQ(scalar->GetAsInt64(0), 7);
  absl::StatusOr<Literal> half =
      ParseNpy(file("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }",
                    std::string("\x00\x3c\x00\x40\x00\x42", 6)));
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_EQ(half->ToStringWithoutShape(), "{1, 2, 3}");
}

TEST(NpyTest, WritesNumpysExactBytes) {
  Literal literal = Literal::CreateR1FromDoubles(PrimitiveType::F32, {1.5, -2, 0.25, 3});
  Literal shaped(Shape(PrimitiveType::F32, {2, 2}));
  *shaped.mutable_raw_data() = literal.raw_data();
  absl::StatusOr<std::string> bytes = SerializeNpy(shaped);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, NumpyF32File());
}

TEST(NpyTest, RoundTripsEveryElementType) {
  const PrimitiveType types[] = {
      PrimitiveType::PRED, PrimitiveType::S8,  PrimitiveType::S16, PrimitiveType::S32,
      PrimitiveType::S64,  PrimitiveType::U8,  PrimitiveType::U16, PrimitiveType::U32,
      PrimitiveType::U64,  PrimitiveType::F16, PrimitiveType::F32, PrimitiveType::F64,
      PrimitiveType::BF16, PrimitiveType::C64, PrimitiveType::S4,  PrimitiveType::F8E4M3FN};
  for (PrimitiveType type : types) {
    SCOPED_TRACE(std::string(PrimitiveTypeName(type)));
    Literal literal = MakeRandomLiteral(Shape(type, {3, 5}), 42);
    if (IsInteger(type) && BitWidth(type) >= 16) {
      // Values beyond the random range, including the sign bit.
      literal.SetFromInt64(0, primitive_util::IsSignedIntegralType(type) ? -12345 : 54321);
    }
    absl::StatusOr<std::string> bytes = SerializeNpy(literal);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(bytes->find('\n') + 1, type == PrimitiveType::BF16 || type == PrimitiveType::S4 ||
                                             type == PrimitiveType::F8E4M3FN
                                         ? 192u
                                         : 128u);
    absl::StatusOr<Literal> back = ParseNpy(*bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->shape().ToString(false), literal.shape().ToString(false));
    EXPECT_EQ(back->raw_data(), literal.raw_data());
  }
}

TEST(NpyTest, Bf16IsWrittenAsF4WithAComment) {
  Literal literal = Literal::CreateR1FromDoubles(PrimitiveType::BF16, {1.5, -0.0078125});
  absl::StatusOr<std::string> bytes = SerializeNpy(literal);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_THAT(*bytes, HasSubstr("'descr': '<f4'"));
  EXPECT_THAT(*bytes, HasSubstr("# hmo: element type bf16"));
  // f32 data: 1.5 = 0x3FC00000.
  const size_t data = bytes->find('\n') + 1;
  EXPECT_EQ(bytes->substr(data, 4), std::string("\x00\x00\xc0\x3f", 4));
  absl::StatusOr<Literal> back = ParseNpy(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->element_type(), PrimitiveType::BF16);
  EXPECT_EQ(back->GetAsDouble(1), -0.0078125);
}

TEST(NpyTest, ReadsVersionTwoHeaders) {
  const std::string dict = "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }";
  std::string bytes("\x93NUMPY\x02\x00", 8);
  const uint32_t length = 128 - 12;
  bytes += std::string{static_cast<char>(length), 0, 0, 0};
  bytes += dict + std::string(length - dict.size() - 1, ' ') + "\n";
  bytes += std::string("\x01\x00\xff\xff", 4);
  absl::StatusOr<Literal> literal = ParseNpy(bytes);
  ASSERT_TRUE(literal.ok()) << literal.status();
  EXPECT_EQ(literal->GetAsInt64(0), 1);
  EXPECT_EQ(literal->GetAsInt64(1), 65535);
}

TEST(NpyTest, RejectsTruncatedFortranAndBigEndianFiles) {
  const std::string good = NumpyF32File();
  absl::StatusOr<Literal> truncated = ParseNpy(good.substr(0, good.size() - 3), "t.npy");
  ASSERT_FALSE(truncated.ok());
  EXPECT_THAT(truncated.status().message(), HasSubstr("t.npy"));
  EXPECT_THAT(truncated.status().message(), HasSubstr("needs 16 bytes, the file has 13"));
  absl::StatusOr<Literal> no_header = ParseNpy(good.substr(0, 40), "h.npy");
  ASSERT_FALSE(no_header.ok());
  EXPECT_THAT(no_header.status().message(), HasSubstr("truncated inside the header"));

  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  absl::StatusOr<Literal> f = ParseNpy(fortran, "f.npy");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(f.status().message(), HasSubstr("f.npy"));
  EXPECT_THAT(f.status().message(), HasSubstr("Fortran order"));

  std::string big = good;
  big.replace(big.find("<f4"), 3, ">f4");
  absl::StatusOr<Literal> b = ParseNpy(big, "b.npy");
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("big-endian"));

  absl::StatusOr<Literal> magic = ParseNpy("PK\x03\x04 not a npy file", "z.npy");
  ASSERT_FALSE(magic.ok());
  EXPECT_THAT(magic.status().message(), HasSubstr("magic"));
}

TEST(NpyTest, FilesAreWrittenAtomicallyAndReadBack) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hmo_npy_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "x.npy").string();
  Literal literal = Literal::CreateR1FromInts(PrimitiveType::S32, {3, -1, 7});
  ASSERT_TRUE(WriteNpyFile(path, literal).ok());
  absl::StatusOr<Literal> back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, literal);
  // A tuple cannot be written: the old file stays, no temporary is left.
  Literal tuple = Literal::MakeTuple({Literal::CreateR0FromInt(PrimitiveType::S32, 1)});
  EXPECT_FALSE(WriteNpyFile(path, tuple).ok());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  EXPECT_TRUE(ReadNpyFile(path).ok());
  absl::StatusOr<Literal> missing = ReadNpyFile((dir / "missing.npy").string());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  std::filesystem::remove_all(dir);
}

TEST(NpyTest, ConvertsOnlyLosslessOrSameKind) {
  const Literal s8 = Literal::CreateR1FromInts(PrimitiveType::S8, {-3, 100});
  absl::StatusOr<Literal> widened = ConvertLiteralForShape(s8, Shape(PrimitiveType::S32, {2}), "a.npy");
  ASSERT_TRUE(widened.ok()) << widened.status();
  EXPECT_EQ(widened->GetAsInt64(0), -3);
  absl::StatusOr<Literal> as_float = ConvertLiteralForShape(s8, Shape(PrimitiveType::F32, {2}), "a.npy");
  ASSERT_TRUE(as_float.ok()) << as_float.status();
  EXPECT_EQ(as_float->GetAsDouble(1), 100);

  const Literal f64 = Literal::CreateR1FromDoubles(PrimitiveType::F64, {0.1, 2});
  absl::StatusOr<Literal> narrowed = ConvertLiteralForShape(f64, Shape(PrimitiveType::F32, {2}), "b.npy");
  ASSERT_TRUE(narrowed.ok()) << narrowed.status();
  EXPECT_EQ(narrowed->GetAsDouble(0), static_cast<double>(0.1f));

  absl::StatusOr<Literal> to_int = ConvertLiteralForShape(f64, Shape(PrimitiveType::S32, {2}), "b.npy");
  ASSERT_FALSE(to_int.ok());
  EXPECT_THAT(to_int.status().message(), HasSubstr("b.npy: expected s32[2] (dtype '<i4', shape (2,)), "
                                                   "found f64[2] (dtype '<f8', shape (2,))"));
  absl::StatusOr<Literal> dims = ConvertLiteralForShape(f64, Shape(PrimitiveType::F64, {1, 2}), "c.npy");
  ASSERT_FALSE(dims.ok());
  EXPECT_THAT(dims.status().message(), HasSubstr("shape (1, 2)"));
  // Same kind but the value does not fit.
  const Literal s32 = Literal::CreateR1FromInts(PrimitiveType::S32, {1, 300});
  absl::StatusOr<Literal> overflow = ConvertLiteralForShape(s32, Shape(PrimitiveType::S8, {2}), "d.npy");
  ASSERT_FALSE(overflow.ok());
  EXPECT_THAT(overflow.status().message(), HasSubstr("element 1 (300) does not fit in s8"));
  // s64 -> f32 loses digits.
  const Literal s64 = Literal::CreateR1FromInts(PrimitiveType::S64, {1});
  EXPECT_FALSE(ConvertLiteralForShape(s64, Shape(PrimitiveType::F32, {1}), "e.npy").ok());
}

}  // namespace
}  // namespace hmo
