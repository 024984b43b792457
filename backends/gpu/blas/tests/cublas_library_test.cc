// The cuBLAS loader: the installed library when there is one, and the
// failure paths (no such library, a library without the entry points, one
// lacking a single entry point) with stand-in libraries built next to the
// tests (fake_cublas/).

#include "gpu/blas/cublas_library.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

TEST(CublasLibraryTest, DefaultCandidatesTrySonamesThenTheToolkitDirectory) {
  std::vector<std::string> candidates = CublasLibrary::DefaultCandidates();
  ASSERT_GE(candidates.size(), 6u);
  EXPECT_EQ(candidates[0], "libcublas.so.13");
  EXPECT_EQ(candidates[1], "libcublas.so.12");
  EXPECT_EQ(candidates[2], "libcublas.so");
  // Then absolute paths: the configured toolkit's directory first.
  EXPECT_THAT(candidates[3], ::testing::EndsWith("/libcublas.so.13"));
  EXPECT_THAT(candidates[3], ::testing::StartsWith("/"));
  EXPECT_THAT(candidates, ::testing::Contains("/usr/local/cuda/lib64/libcublas.so.12"));
}

TEST(CublasLibraryTest, DefaultLoadsOnceOrIsUnavailableNamingTheCandidates) {
  absl::StatusOr<const CublasLibrary*> library = CublasLibrary::Default();
  absl::StatusOr<const CublasLibrary*> again = CublasLibrary::Default();
  if (!library.ok()) {
    EXPECT_EQ(library.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(library.status().message()), HasSubstr("libcublas.so.13"));
    EXPECT_THAT(std::string(library.status().message()), HasSubstr("libcublas.so.12"));
    EXPECT_EQ(again.status(), library.status());
    GTEST_SKIP() << "cuBLAS is not installed here: " << library.status();
  }
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *library);  // loaded once
  const CublasFunctions& f = (*library)->functions();
  EXPECT_NE(f.Create, nullptr);
  EXPECT_NE(f.Destroy, nullptr);
  EXPECT_NE(f.SetStream, nullptr);
  EXPECT_NE(f.SgemmStridedBatched, nullptr);
  EXPECT_NE(f.DgemmStridedBatched, nullptr);
  EXPECT_THAT((*library)->name(), HasSubstr("libcublas.so"));
}

TEST(CublasLibraryTest, MissingLibraryIsUnavailableWithTheLoaderReason) {
  const std::vector<std::string> names = {"libcublas-not-installed.so.13", "/nonexistent/libcublas.so.12"};
  absl::StatusOr<CublasLibrary> library = CublasLibrary::Load(names);
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kUnavailable);
  const std::string message(library.status().message());
  EXPECT_THAT(message, HasSubstr("libcublas-not-installed.so.13: "));
  EXPECT_THAT(message, HasSubstr("/nonexistent/libcublas.so.12: "));
  // dlerror()'s text reaches the caller.
  EXPECT_THAT(message, HasSubstr("cannot open shared object file"));
}

TEST(CublasLibraryTest, NoCandidatesIsUnavailable) {
  absl::StatusOr<CublasLibrary> library = CublasLibrary::Load({});
  EXPECT_EQ(library.status().code(), absl::StatusCode::kUnavailable);
}

TEST(CublasLibraryTest, LibraryWithoutTheEntryPointsIsRejected) {
  // libc loads, but it is not cuBLAS.
  const std::vector<std::string> names = {"libc.so.6"};
  absl::StatusOr<CublasLibrary> library = CublasLibrary::Load(names);
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(library.status().message()), HasSubstr("libc.so.6 has no entry point cublasCreate_v2"));
}

TEST(CublasLibraryTest, MissingSingleEntryPointIsNamed) {
  const std::vector<std::string> names = {HMO_FAKE_CUBLAS_MISSING_DGEMM};
  absl::StatusOr<CublasLibrary> library = CublasLibrary::Load(names);
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(library.status().message()), HasSubstr("has no entry point cublasDgemmStridedBatched"));
}

TEST(CublasLibraryTest, FirstCandidateThatResolvesEverythingWins) {
  const std::vector<std::string> names = {"libcublas-not-installed.so.13", HMO_FAKE_CUBLAS_MISSING_DGEMM,
                                          HMO_FAKE_CUBLAS_COMPLETE};
  absl::StatusOr<CublasLibrary> library = CublasLibrary::Load(names);
  ASSERT_TRUE(library.ok()) << library.status();
  EXPECT_EQ(library->name(), HMO_FAKE_CUBLAS_COMPLETE);
  const CublasFunctions& f = library->functions();
  ASSERT_NE(f.GetStatusString, nullptr);
  cublas_abi::Handle handle = nullptr;
  EXPECT_TRUE(library->Check(f.Create(&handle), "cublasCreate").ok());
  EXPECT_NE(handle, nullptr);
  // The fake answers every GEMM with CUBLAS_STATUS_NOT_SUPPORTED; Check
  // turns it into UNIMPLEMENTED with the library's own status text.
  const float one = 1, zero = 0;
  float x = 2, y = 3, z = 0;
  absl::Status gemm = library->Check(f.SgemmStridedBatched(handle, cublas_abi::kOpN, cublas_abi::kOpN, 1, 1, 1, &one,
                                                           &x, 1, 0, &y, 1, 0, &zero, &z, 1, 0, 1),
                                     "cublasSgemmStridedBatched");
  EXPECT_EQ(gemm.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(gemm.message(), "cublasSgemmStridedBatched: cuBLAS error 15: fake cuBLAS: not supported");
  EXPECT_TRUE(library->Check(f.Destroy(handle), "cublasDestroy").ok());
}

TEST(CublasStatusToStatusTest, CodesSayWhatToDo) {
  EXPECT_TRUE(CublasStatusToStatus(cublas_abi::kSuccess, nullptr, "x").ok());
  EXPECT_EQ(CublasStatusToStatus(cublas_abi::kNotInitialized, nullptr, "x").code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(CublasStatusToStatus(cublas_abi::kArchMismatch, nullptr, "x").code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(CublasStatusToStatus(cublas_abi::kAllocFailed, nullptr, "x").code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(CublasStatusToStatus(cublas_abi::kInvalidValue, nullptr, "x").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CublasStatusToStatus(cublas_abi::kExecutionFailed, nullptr, "x").code(), absl::StatusCode::kInternal);
  absl::Status status = CublasStatusToStatus(cublas_abi::kInternalError, nullptr, "cublasCreate");
  EXPECT_EQ(status.message(), "cublasCreate: cuBLAS error 14: (no status text in this cuBLAS)");
}

}  // namespace
}  // namespace hmo::gpu
