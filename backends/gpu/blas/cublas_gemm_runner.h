#ifndef HMO_BACKENDS_GPU_BLAS_CUBLAS_GEMM_RUNNER_H_
#define HMO_BACKENDS_GPU_BLAS_CUBLAS_GEMM_RUNNER_H_

// Runs GemmDescriptors with cuBLAS on one CUDA stream.

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gpu/blas/cublas_library.h"
#include "gpu/blas/gemm_descriptor.h"

namespace hmo::gpu {

class CublasGemmRunner {
 public:
  // A cuBLAS handle for the device current on the calling thread, bound to
  // `stream` (a cudaStream_t; nullptr is the legacy default stream), using
  // `library` (which must outlive the runner) or CublasLibrary::Default().
  // UNAVAILABLE when hmo was built without the CUDA runtime, when there is no
  // CUDA device (checked first, so no cuBLAS call is made without one), when
  // cuBLAS cannot be loaded, or when cublasCreate fails for lack of a driver.
  static absl::StatusOr<std::unique_ptr<CublasGemmRunner>> Create(void* stream);
  static absl::StatusOr<std::unique_ptr<CublasGemmRunner>> Create(void* stream, const CublasLibrary& library);

  CublasGemmRunner(const CublasGemmRunner&) = delete;
  CublasGemmRunner& operator=(const CublasGemmRunner&) = delete;
  ~CublasGemmRunner();

  // Enqueues out = op(lhs) * op(rhs) (see gemm_descriptor.h; alpha 1, beta 0:
  // out's previous contents are ignored) on the stream and returns without
  // waiting. lhs, rhs and out are device (or managed) pointers to elements of
  // gemm.element_type, at least as large as the descriptor says; out must
  // not overlap the inputs. An empty output enqueues nothing; k = 0 zeroes
  // the output. INVALID_ARGUMENT for a rejected descriptor, one beyond
  // cuBLAS's int range or a null pointer, FAILED_PRECONDITION when another device is current
  // than at Create, otherwise the cuBLAS / CUDA error. Callable from several
  // threads (calls are serialized).
  absl::Status Run(const GemmDescriptor& gemm, const void* lhs, const void* rhs, void* out);

  void* stream() const { return stream_; }
  int device() const { return device_; }
  const CublasLibrary& library() const { return library_; }

 private:
  CublasGemmRunner(const CublasLibrary& library, cublas_abi::Handle handle, void* stream, int device)
      : library_(library), handle_(handle), stream_(stream), device_(device) {}

  const CublasLibrary& library_;
  absl::Mutex mutex_;
  cublas_abi::Handle handle_ ABSL_GUARDED_BY(mutex_);
  void* const stream_;
  const int device_;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_BLAS_CUBLAS_GEMM_RUNNER_H_
