// GemmDescriptor: the dense constructor's strides, validation, and names.

#include "gpu/blas/gemm_descriptor.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

TEST(GemmDescriptorTest, DenseStridesAreTheMatrixSizes) {
  GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF64, 3, 2, 5, 7, true, false);
  EXPECT_EQ(gemm.batch, 3);
  EXPECT_EQ(gemm.lhs_batch_stride, 14);  // m * k
  EXPECT_EQ(gemm.rhs_batch_stride, 35);  // k * n
  EXPECT_EQ(gemm.out_batch_stride, 10);  // m * n
  EXPECT_TRUE(gemm.transpose_lhs);
  EXPECT_FALSE(gemm.transpose_rhs);
  EXPECT_EQ(gemm.ToString(), "f64[3] 2x5x7 lhs^T strides(lhs 14, rhs 35, out 10)");
  EXPECT_TRUE(ValidateGemmDescriptor(gemm).ok());
}

TEST(GemmDescriptorTest, ElementTypes) {
  EXPECT_EQ(GemmElementTypeName(GemmElementType::kF32), "f32");
  EXPECT_EQ(GemmElementTypeName(GemmElementType::kF64), "f64");
  EXPECT_EQ(GemmElementBytes(GemmElementType::kF32), 4);
  EXPECT_EQ(GemmElementBytes(GemmElementType::kF64), 8);
}

void ExpectInvalid(const GemmDescriptor& gemm, const std::string& why) {
  absl::Status status = ValidateGemmDescriptor(gemm);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << gemm.ToString();
  EXPECT_THAT(std::string(status.message()), HasSubstr(why));
}

TEST(GemmDescriptorTest, RejectsInvalidDescriptors) {
  GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF32, 2, 3, 4, 5);
  GemmDescriptor bad = gemm;
  bad.batch = 0;
  ExpectInvalid(bad, "batch must be at least 1");
  bad = gemm;
  bad.k = -1;
  ExpectInvalid(bad, "negative dimension");
  bad = gemm;
  bad.rhs_batch_stride = -20;
  ExpectInvalid(bad, "negative batch stride");
  bad = gemm;
  bad.out_batch_stride = 11;
  ExpectInvalid(bad, "output matrices overlap (out_batch_stride < m*n = 12)");
  bad = gemm;
  bad.lhs_batch_stride = int64_t{1} << 62;
  ExpectInvalid(bad, "overflow");
  bad = gemm;
  bad.element_type = static_cast<GemmElementType>(7);
  ExpectInvalid(bad, "neither f32 nor f64");
}

TEST(GemmDescriptorTest, AcceptsBroadcastInputsAndASingleOverlappingOutput) {
  GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF32, 4, 3, 4, 5);
  gemm.lhs_batch_stride = 0;
  gemm.rhs_batch_stride = 0;
  EXPECT_TRUE(ValidateGemmDescriptor(gemm).ok());
  // One batch matrix: the output stride is never used.
  GemmDescriptor single = DenseGemmDescriptor(GemmElementType::kF32, 1, 3, 4, 5);
  single.out_batch_stride = 0;
  EXPECT_TRUE(ValidateGemmDescriptor(single).ok());
}

}  // namespace
}  // namespace hmo::gpu
