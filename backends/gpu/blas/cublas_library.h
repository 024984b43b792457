#ifndef HMO_BACKENDS_GPU_BLAS_CUBLAS_LIBRARY_H_
#define HMO_BACKENDS_GPU_BLAS_CUBLAS_LIBRARY_H_

// cuBLAS, loaded at run time with dlopen: hmo neither builds against
// cublas_v2.h nor links libcublas, so the GPU backend builds and runs
// (without dot support) where cuBLAS is not installed.
//
// The entry points used (all return cublasStatus_t, 0 = CUBLAS_STATUS_SUCCESS):
//   cublasCreate_v2(cublasHandle_t*)
//   cublasDestroy_v2(cublasHandle_t)
//   cublasSetStream_v2(cublasHandle_t, cudaStream_t)
//   cublasSgemmStridedBatched / cublasDgemmStridedBatched(handle, transa,
//       transb, int m, int n, int k, const T* alpha, const T* A, int lda,
//       long long strideA, const T* B, int ldb, long long strideB,
//       const T* beta, T* C, int ldc, long long strideC, int batchCount)
//   const char* cublasGetStatusString(cublasStatus_t)   (optional: cuBLAS
//       releases before 11.4 lack it; messages then carry only the code)
// The ABI types below restate cuBLAS's public header (cublas_api.h): an
// opaque handle pointer, int-sized enums, and the values of cublasStatus_t and
// cublasOperation_t.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hmo::gpu {

namespace cublas_abi {

using Handle = struct OpaqueCublasContext*;  // cublasHandle_t
using Stream = void*;                         // cudaStream_t

enum Status : int {
  kSuccess = 0,
  kNotInitialized = 1,
  kAllocFailed = 3,
  kInvalidValue = 7,
  kArchMismatch = 8,
  kMappingError = 11,
  kExecutionFailed = 13,
  kInternalError = 14,
  kNotSupported = 15,
  kLicenseError = 16,
};

enum Operation : int { kOpN = 0, kOpT = 1, kOpC = 2 };

}  // namespace cublas_abi

struct CublasFunctions {
  cublas_abi::Status (*Create)(cublas_abi::Handle*) = nullptr;
  cublas_abi::Status (*Destroy)(cublas_abi::Handle) = nullptr;
  cublas_abi::Status (*SetStream)(cublas_abi::Handle, cublas_abi::Stream) = nullptr;
  cublas_abi::Status (*SgemmStridedBatched)(cublas_abi::Handle, cublas_abi::Operation, cublas_abi::Operation, int,
                                            int, int, const float*, const float*, int, long long, const float*, int,
                                            long long, const float*, float*, int, long long, int) = nullptr;
  cublas_abi::Status (*DgemmStridedBatched)(cublas_abi::Handle, cublas_abi::Operation, cublas_abi::Operation, int,
                                            int, int, const double*, const double*, int, long long, const double*,
                                            int, long long, const double*, double*, int, long long, int) = nullptr;
  // Null when the library predates it.
  const char* (*GetStatusString)(cublas_abi::Status) = nullptr;
};

// The absl::Status for a cuBLAS status: OK for CUBLAS_STATUS_SUCCESS; else
// "<what>: cuBLAS error <code>: <status_text>" (status_text may be null) with
// a code saying what to do about it: UNAVAILABLE for a library that cannot
// run here (not initialized: no driver; architecture mismatch; license),
// RESOURCE_EXHAUSTED for an allocation failure, INVALID_ARGUMENT for rejected
// arguments, UNIMPLEMENTED for "not supported", INTERNAL otherwise.
absl::Status CublasStatusToStatus(cublas_abi::Status status, const char* status_text, std::string_view what);

class CublasLibrary {
 public:
  // The names tried by Default(), in order: the sonames CUDA 13 and 12 ship
  // (found through the loader's search path), the development symlink, then
  // the same names under the toolkit library directory this build was
  // configured with and under /usr/local/cuda/lib64 (for toolkits that are
  // not on the loader's path).
  static std::vector<std::string> DefaultCandidates();

  // dlopen()s the first of `candidates` that loads and resolves every
  // required entry point above. UNAVAILABLE when none loads (naming every
  // candidate with dlerror's reason), or when the one that loads lacks an
  // entry point (naming the library and the symbol). The handle of a library
  // that is returned stays open for the process's lifetime.
  static absl::StatusOr<CublasLibrary> Load(absl::Span<const std::string> candidates);

  // Load(DefaultCandidates()), done once per process (thread-safe); later
  // calls return the same library or the same error.
  static absl::StatusOr<const CublasLibrary*> Default();

  const CublasFunctions& functions() const { return functions_; }
  // The candidate that was loaded.
  const std::string& name() const { return name_; }

  // CublasStatusToStatus with this library's cublasGetStatusString text.
  absl::Status Check(cublas_abi::Status status, std::string_view what) const;

 private:
  CublasLibrary(std::string name, CublasFunctions functions) : name_(std::move(name)), functions_(functions) {}

  std::string name_;
  CublasFunctions functions_;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_BLAS_CUBLAS_LIBRARY_H_
