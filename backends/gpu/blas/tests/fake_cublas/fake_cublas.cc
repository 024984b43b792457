// A stand-in for libcublas that the loader tests dlopen: it exports the entry
// points CublasLibrary resolves, with cuBLAS's C signatures (handle and
// stream as opaque pointers, enums as int). Creating a handle works and
// hands out a fixed address; every GEMM answers CUBLAS_STATUS_NOT_SUPPORTED
// (15), so a test can see which status and status text reached the caller.
// Built with HMO_FAKE_CUBLAS_WITHOUT_DGEMM it lacks
// cublasDgemmStridedBatched, for the missing-symbol path.

#define HMO_FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
int fake_context = 0;
constexpr int kNotSupported = 15;
}  // namespace

HMO_FAKE_EXPORT int cublasCreate_v2(void** handle) {
  *handle = &fake_context;
  return 0;
}

HMO_FAKE_EXPORT int cublasDestroy_v2(void*) { return 0; }

HMO_FAKE_EXPORT int cublasSetStream_v2(void*, void*) { return 0; }

HMO_FAKE_EXPORT int cublasSgemmStridedBatched(void*, int, int, int, int, int, const float*, const float*, int,
                                              long long, const float*, int, long long, const float*, float*, int,
                                              long long, int) {
  return kNotSupported;
}

#if !HMO_FAKE_CUBLAS_WITHOUT_DGEMM
HMO_FAKE_EXPORT int cublasDgemmStridedBatched(void*, int, int, int, int, int, const double*, const double*, int,
                                              long long, const double*, int, long long, const double*, double*, int,
                                              long long, int) {
  return kNotSupported;
}
#endif

HMO_FAKE_EXPORT const char* cublasGetStatusString(int status) {
  return status == kNotSupported ? "fake cuBLAS: not supported" : "fake cuBLAS: other status";
}
