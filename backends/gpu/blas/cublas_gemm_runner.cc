#include "gpu/blas/cublas_gemm_runner.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gpu/blas/cublas_gemm_arguments.h"
#include "hmo/gpu/cuda_device_query.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>

#include "cuda_status.h"
#endif

namespace hmo::gpu {

absl::StatusOr<std::unique_ptr<CublasGemmRunner>> CublasGemmRunner::Create(void* stream) {
  // The device check comes before loading cuBLAS: without a device there is
  // nothing to run on, whatever is installed.
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) return absl::UnavailableError("no CUDA device: " + std::string(devices.status().message()));
  absl::StatusOr<const CublasLibrary*> library = CublasLibrary::Default();
  if (!library.ok()) return library.status();
  return Create(stream, **library);
}

#if HMO_GPU_HAVE_CUDA_RUNTIME

absl::StatusOr<std::unique_ptr<CublasGemmRunner>> CublasGemmRunner::Create(void* stream,
                                                                           const CublasLibrary& library) {
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) return absl::UnavailableError("no CUDA device: " + std::string(devices.status().message()));
  int device = 0;
  if (absl::Status status = CudaStatus(cudaGetDevice(&device), "cudaGetDevice"); !status.ok()) return status;
  const CublasFunctions& f = library.functions();
  cublas_abi::Handle handle = nullptr;
  if (absl::Status status = library.Check(f.Create(&handle), "cublasCreate"); !status.ok()) return status;
  if (absl::Status status = library.Check(f.SetStream(handle, stream), "cublasSetStream"); !status.ok()) {
    f.Destroy(handle);
    return status;
  }
  return std::unique_ptr<CublasGemmRunner>(new CublasGemmRunner(library, handle, stream, device));
}

CublasGemmRunner::~CublasGemmRunner() {
  absl::MutexLock lock(&mutex_);
  if (handle_ != nullptr) library_.functions().Destroy(handle_);
}

absl::Status CublasGemmRunner::Run(const GemmDescriptor& gemm, const void* lhs, const void* rhs, void* out) {
  absl::StatusOr<CublasGemmArguments> arguments = MapGemmToCublas(gemm);
  if (!arguments.ok()) return arguments.status();
  if (absl::Status range = CheckCublasIntRange(*arguments); !range.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(range.message(), " (GEMM ", gemm.ToString(), ")"));
  }
  if (gemm.m == 0 || gemm.n == 0) return absl::OkStatus();
  if (out == nullptr || (gemm.k > 0 && (lhs == nullptr || rhs == nullptr))) {
    return absl::InvalidArgumentError(absl::StrCat("GEMM ", gemm.ToString(), ": null operand pointer"));
  }
  int current = 0;
  if (absl::Status status = CudaStatus(cudaGetDevice(&current), "cudaGetDevice"); !status.ok()) return status;
  if (current != device_) {
    return absl::FailedPreconditionError(absl::StrCat("cuBLAS GEMM runner was created on device ", device_,
                                                      " but device ", current, " is current"));
  }
  const int64_t element_bytes = GemmElementBytes(gemm.element_type);
  if (gemm.k == 0) {
    // An empty sum: every output matrix is zero. One 2-D memset covers the
    // batch (rows = batch matrices, row pitch = the batch stride).
    const size_t width = static_cast<size_t>(gemm.m * gemm.n * element_bytes);
    const size_t pitch = gemm.batch > 1 ? static_cast<size_t>(gemm.out_batch_stride * element_bytes) : width;
    return CudaStatus(cudaMemset2DAsync(out, pitch, 0, width, static_cast<size_t>(gemm.batch),
                                        static_cast<cudaStream_t>(stream_)),
                      "cudaMemset2DAsync (GEMM with k = 0)");
  }

  const void* pointer_a = arguments->a == GemmOperand::kLhs ? lhs : rhs;
  const void* pointer_b = arguments->b == GemmOperand::kLhs ? lhs : rhs;
  const CublasGemmArguments& g = *arguments;
  const CublasFunctions& f = library_.functions();
  absl::MutexLock lock(&mutex_);
  // The handle is in its default (host) pointer mode: alpha and beta are
  // read from host memory when the call is made.
  if (gemm.element_type == GemmElementType::kF32) {
    const float one = 1.0f, zero = 0.0f;
    return library_.Check(
        f.SgemmStridedBatched(handle_, g.transa, g.transb, static_cast<int>(g.m), static_cast<int>(g.n),
                              static_cast<int>(g.k), &one, static_cast<const float*>(pointer_a),
                              static_cast<int>(g.lda), g.stride_a, static_cast<const float*>(pointer_b),
                              static_cast<int>(g.ldb), g.stride_b, &zero, static_cast<float*>(out),
                              static_cast<int>(g.ldc), g.stride_c, static_cast<int>(g.batch_count)),
        "cublasSgemmStridedBatched");
  }
  const double one = 1.0, zero = 0.0;
  return library_.Check(
      f.DgemmStridedBatched(handle_, g.transa, g.transb, static_cast<int>(g.m), static_cast<int>(g.n),
                            static_cast<int>(g.k), &one, static_cast<const double*>(pointer_a),
                            static_cast<int>(g.lda), g.stride_a, static_cast<const double*>(pointer_b),
                            static_cast<int>(g.ldb), g.stride_b, &zero, static_cast<double*>(out),
                            static_cast<int>(g.ldc), g.stride_c, static_cast<int>(g.batch_count)),
      "cublasDgemmStridedBatched");
}

#else  // !HMO_GPU_HAVE_CUDA_RUNTIME

absl::StatusOr<std::unique_ptr<CublasGemmRunner>> CublasGemmRunner::Create(void*, const CublasLibrary&) {
  return absl::UnavailableError("no CUDA device: hmo was built without the CUDA runtime");
}

// Unreachable: no runner can be created in this build.
CublasGemmRunner::~CublasGemmRunner() = default;

absl::Status CublasGemmRunner::Run(const GemmDescriptor&, const void*, const void*, void*) {
  return absl::UnavailableError("hmo was built without the CUDA runtime");
}

#endif  // HMO_GPU_HAVE_CUDA_RUNTIME

}  // namespace hmo::gpu
