// CublasGemmRunner: UNAVAILABLE without a device (never a crash), and, with a
// device and cuBLAS, GEMMs on device memory checked against the host
// reference.

#include "gpu/blas/cublas_gemm_runner.h"

#include <string>
#include <vector>

#include "gemm_reference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/cuda_device_query.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_reference::LhsElements;
using testing_reference::OutElements;
using testing_reference::RhsElements;
using testing_reference::RowMajorGemm;
using testing_reference::Values;

// Runs on every machine: without a device Create names the missing device;
// with one it succeeds or names the missing cuBLAS, never the device.
TEST(CublasGemmRunnerTest, CreateNeedsADevice) {
  absl::StatusOr<int> devices = CudaDeviceCount();
  absl::StatusOr<std::unique_ptr<CublasGemmRunner>> runner = CublasGemmRunner::Create(nullptr);
  if (devices.ok()) {
    if (!runner.ok()) {
      EXPECT_EQ(runner.status().code(), absl::StatusCode::kUnavailable) << runner.status();
      EXPECT_THAT(std::string(runner.status().message()), Not(HasSubstr("no CUDA device")));
    }
    return;
  }
  ASSERT_FALSE(runner.ok());
  EXPECT_EQ(runner.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(runner.status().message()), HasSubstr("no CUDA device"));
}

TEST(CublasGemmRunnerTest, CreateWithALoadedLibraryChecksTheDeviceFirst) {
  absl::StatusOr<int> devices = CudaDeviceCount();
  // The stand-in library hands out a handle; the device check must come
  // first.
  const std::vector<std::string> names = {HMO_FAKE_CUBLAS_COMPLETE};
  absl::StatusOr<CublasLibrary> library = CublasLibrary::Load(names);
  ASSERT_TRUE(library.ok()) << library.status();
  absl::StatusOr<std::unique_ptr<CublasGemmRunner>> runner = CublasGemmRunner::Create(nullptr, *library);
  if (devices.ok()) {
    EXPECT_TRUE(runner.ok()) << runner.status();
    return;
  }
  ASSERT_FALSE(runner.ok());
  EXPECT_EQ(runner.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(runner.status().message()), HasSubstr("no CUDA device"));
}

#if HMO_GPU_HAVE_CUDA_RUNTIME

// Device memory holding a copy of a host vector, freed at scope exit.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(const std::vector<T>& host) : size_(host.size()) {
    EXPECT_EQ(cudaMalloc(&data_, bytes()), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(data_); }
  T* get() const { return static_cast<T*>(data_); }
  std::vector<T> Read() const {
    std::vector<T> host(size_);
    EXPECT_EQ(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }

 private:
  size_t bytes() const { return size_ * sizeof(T); }
  size_t size_;
  void* data_ = nullptr;
};

class CublasGemmRunnerDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<int> devices = CudaDeviceCount();
    if (!devices.ok()) GTEST_SKIP() << "no CUDA device: " << devices.status();
    absl::StatusOr<const CublasLibrary*> library = CublasLibrary::Default();
    if (!library.ok()) GTEST_SKIP() << "cuBLAS is not installed here: " << library.status();
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
    absl::StatusOr<std::unique_ptr<CublasGemmRunner>> runner = CublasGemmRunner::Create(stream_);
    ASSERT_TRUE(runner.ok()) << runner.status();
    runner_ = std::move(*runner);
  }
  void TearDown() override {
    runner_.reset();
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  // Runs `gemm` on the device and compares with the host reference; padding
  // between output matrices must keep its sentinel.
  template <typename T>
  void ExpectDeviceGemmMatchesReference(const GemmDescriptor& gemm, double tolerance) {
    SCOPED_TRACE(gemm.ToString());
    const std::vector<T> lhs = Values<T>(LhsElements(gemm), 3);
    const std::vector<T> rhs = Values<T>(RhsElements(gemm), 4);
    std::vector<T> expected(OutElements(gemm), static_cast<T>(-5));
    RowMajorGemm(gemm, lhs, rhs, expected);
    DeviceBuffer<T> device_lhs(lhs), device_rhs(rhs), device_out(std::vector<T>(OutElements(gemm), T(-5)));
    absl::Status run = runner_->Run(gemm, device_lhs.get(), device_rhs.get(), device_out.get());
    ASSERT_TRUE(run.ok()) << run;
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    const std::vector<T> actual = device_out.Read();
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      ASSERT_NEAR(actual[i], expected[i], tolerance) << "output element " << i;
    }
  }

  cudaStream_t stream_ = nullptr;
  std::unique_ptr<CublasGemmRunner> runner_;
};

TEST_F(CublasGemmRunnerDeviceTest, F32Gemm64x48x32) {
  // Small integer inputs: every partial sum is exact in f32 (and in TF32
  // inputs), so the tolerance only covers accumulation order.
  ExpectDeviceGemmMatchesReference<float>(DenseGemmDescriptor(GemmElementType::kF32, 1, 64, 48, 32), 1e-3);
}

TEST_F(CublasGemmRunnerDeviceTest, F32GemmWithTransposes) {
  ExpectDeviceGemmMatchesReference<float>(
      DenseGemmDescriptor(GemmElementType::kF32, 1, 64, 48, 32, /*transpose_lhs=*/true, /*transpose_rhs=*/true),
      1e-3);
}

TEST_F(CublasGemmRunnerDeviceTest, BatchedF64GemmWithPaddingAndTransposedLhs) {
  GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF64, 3, 5, 7, 9, /*transpose_lhs=*/true);
  gemm.lhs_batch_stride += 4;
  gemm.out_batch_stride += 3;
  ExpectDeviceGemmMatchesReference<double>(gemm, 1e-12);
}

TEST_F(CublasGemmRunnerDeviceTest, BatchedF64GemmWithBroadcastRhs) {
  GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF64, 4, 6, 3, 8, false, /*transpose_rhs=*/true);
  gemm.rhs_batch_stride = 0;
  ExpectDeviceGemmMatchesReference<double>(gemm, 1e-12);
}

TEST_F(CublasGemmRunnerDeviceTest, EmptyContractionZeroesTheOutputOnly) {
  GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF32, 2, 3, 4, 0);
  gemm.out_batch_stride += 2;
  ExpectDeviceGemmMatchesReference<float>(gemm, 0);
}

TEST_F(CublasGemmRunnerDeviceTest, InvalidDescriptorIsRejectedBeforeCuBlas) {
  GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF32, 2, 3, 4, 5);
  gemm.out_batch_stride = 1;
  absl::Status run = runner_->Run(gemm, nullptr, nullptr, nullptr);
  EXPECT_EQ(run.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(run.message()), HasSubstr("overlap"));
  absl::Status null_pointers = runner_->Run(DenseGemmDescriptor(GemmElementType::kF32, 1, 2, 2, 2), nullptr,
                                            nullptr, nullptr);
  EXPECT_EQ(null_pointers.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(null_pointers.message()), HasSubstr("null operand pointer"));
}

#endif  // HMO_GPU_HAVE_CUDA_RUNTIME

}  // namespace
}  // namespace hmo::gpu
