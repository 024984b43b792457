#include "gpu/blas/cublas_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hmo::gpu {
namespace {

constexpr const char* kToolkitLibraryDirectory = "/usr/local/cuda/lib64";

#ifndef HMO_GPU_CUDA_LIBRARY_DIR
#define HMO_GPU_CUDA_LIBRARY_DIR "/usr/local/cuda/lib64"
#endif

// Resolves `symbol` into `slot`; false when it is missing.
template <typename F>
bool Resolve(void* handle, const char* symbol, F*& slot) {
  slot = reinterpret_cast<F*>(dlsym(handle, symbol));
  return slot != nullptr;
}

// Resolves the entry points of the library behind `handle`; the name of the
// first missing required one on failure.
absl::StatusOr<CublasFunctions> ResolveFunctions(void* handle) {
  CublasFunctions f;
  struct Entry {
    const char* symbol;
    bool resolved;
  };
  const Entry required[] = {
      {"cublasCreate_v2", Resolve(handle, "cublasCreate_v2", f.Create)},
      {"cublasDestroy_v2", Resolve(handle, "cublasDestroy_v2", f.Destroy)},
      {"cublasSetStream_v2", Resolve(handle, "cublasSetStream_v2", f.SetStream)},
      {"cublasSgemmStridedBatched", Resolve(handle, "cublasSgemmStridedBatched", f.SgemmStridedBatched)},
      {"cublasDgemmStridedBatched", Resolve(handle, "cublasDgemmStridedBatched", f.DgemmStridedBatched)},
  };
  for (const Entry& entry : required) {
    if (!entry.resolved) return absl::NotFoundError(entry.symbol);
  }
  Resolve(handle, "cublasGetStatusString", f.GetStatusString);
  return f;
}

}  // namespace

std::vector<std::string> CublasLibrary::DefaultCandidates() {
  const char* const sonames[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  std::vector<std::string> candidates(std::begin(sonames), std::end(sonames));
  // The directory libcudart was found in at configure time, then the
  // toolkit's conventional one (they differ when the toolkit has lib/ and
  // lib64/ side by side).
  std::vector<std::string> directories = {HMO_GPU_CUDA_LIBRARY_DIR};
  if (directories.front() != kToolkitLibraryDirectory) directories.push_back(kToolkitLibraryDirectory);
  for (const std::string& directory : directories) {
    for (const char* soname : sonames) candidates.push_back(absl::StrCat(directory, "/", soname));
  }
  return candidates;
}

absl::StatusOr<CublasLibrary> CublasLibrary::Load(absl::Span<const std::string> candidates) {
  if (candidates.empty()) return absl::UnavailableError("cuBLAS library: no candidate names to load");
  std::vector<std::string> failures;
  for (const std::string& name : candidates) {
    dlerror();
    // RTLD_LOCAL: cuBLAS's symbols stay out of the global namespace, so a
    // second cuBLAS loaded by someone else in the process cannot clash.
    void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* reason = dlerror();
      std::string why = reason != nullptr ? reason : "unknown dlopen error";
      // glibc's reason usually starts with the name already.
      failures.push_back(why.find(name) == std::string::npos ? absl::StrCat(name, ": ", why) : why);
      continue;
    }
    absl::StatusOr<CublasFunctions> functions = ResolveFunctions(handle);
    if (!functions.ok()) {
      dlclose(handle);
      failures.push_back(absl::StrCat(name, " has no entry point ", functions.status().message()));
      continue;
    }
    return CublasLibrary(name, *functions);
  }
  return absl::UnavailableError(absl::StrCat("cuBLAS library cannot be loaded (", absl::StrJoin(failures, "; "), ")"));
}

absl::StatusOr<const CublasLibrary*> CublasLibrary::Default() {
  // A function-local static: initialized exactly once even when several
  // threads ask at the same time; never destroyed (the library stays loaded).
  static const absl::StatusOr<CublasLibrary>* const loaded =
      new absl::StatusOr<CublasLibrary>(Load(DefaultCandidates()));
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

absl::Status CublasStatusToStatus(cublas_abi::Status status, const char* status_text, std::string_view what) {
  if (status == cublas_abi::kSuccess) return absl::OkStatus();
  std::string message = absl::StrCat(std::string(what), ": cuBLAS error ", static_cast<int>(status), ": ",
                                     status_text != nullptr ? status_text : "(no status text in this cuBLAS)");
  switch (status) {
    case cublas_abi::kNotInitialized:
    case cublas_abi::kArchMismatch:
    case cublas_abi::kLicenseError:
      return absl::UnavailableError(message);
    case cublas_abi::kAllocFailed:
      return absl::ResourceExhaustedError(message);
    case cublas_abi::kInvalidValue:
      return absl::InvalidArgumentError(message);
    case cublas_abi::kNotSupported:
      return absl::UnimplementedError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::Status CublasLibrary::Check(cublas_abi::Status status, std::string_view what) const {
  if (status == cublas_abi::kSuccess) return absl::OkStatus();
  const char* text = functions_.GetStatusString != nullptr ? functions_.GetStatusString(status) : nullptr;
  return CublasStatusToStatus(status, text, what);
}

}  // namespace hmo::gpu
