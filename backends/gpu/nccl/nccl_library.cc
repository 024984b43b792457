#include "gpu/nccl/nccl_library.h"

#include <dlfcn.h>

namespace hmo::gpu {
namespace {

// Resolves `symbol` into `slot`; false when it is missing.
template <typename F>
bool Resolve(void* handle, const char* symbol, F*& slot) {
  slot = reinterpret_cast<F*>(dlsym(handle, symbol));
  return slot != nullptr;
}

}  // namespace

absl::StatusOr<NcclLibrary> NcclLibrary::Load(const std::string& name) {
  dlerror();
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return absl::UnavailableError("NCCL library " + name + " cannot be loaded: " +
                                  (reason != nullptr ? reason : "unknown dlopen error"));
  }
  NcclFunctions f;
  struct Entry {
    const char* symbol;
    bool resolved;
  };
  const Entry entries[] = {
      {"ncclGetUniqueId", Resolve(handle, "ncclGetUniqueId", f.GetUniqueId)},
      {"ncclCommInitRank", Resolve(handle, "ncclCommInitRank", f.CommInitRank)},
      {"ncclCommDestroy", Resolve(handle, "ncclCommDestroy", f.CommDestroy)},
      {"ncclAllReduce", Resolve(handle, "ncclAllReduce", f.AllReduce)},
      {"ncclAllGather", Resolve(handle, "ncclAllGather", f.AllGather)},
      {"ncclReduceScatter", Resolve(handle, "ncclReduceScatter", f.ReduceScatter)},
      {"ncclSend", Resolve(handle, "ncclSend", f.Send)},
      {"ncclRecv", Resolve(handle, "ncclRecv", f.Recv)},
      {"ncclGroupStart", Resolve(handle, "ncclGroupStart", f.GroupStart)},
      {"ncclGroupEnd", Resolve(handle, "ncclGroupEnd", f.GroupEnd)},
      {"ncclGetErrorString", Resolve(handle, "ncclGetErrorString", f.GetErrorString)},
  };
  // Optional: a missing one only disables what needs it.
  Resolve(handle, "ncclCommSplit", f.CommSplit);
  Resolve(handle, "ncclBroadcast", f.Broadcast);
  for (const Entry& entry : entries) {
    if (!entry.resolved) {
      dlclose(handle);
      return absl::UnavailableError("NCCL library " + name + " has no entry point " + entry.symbol +
                                    " (not NCCL 2.x?)");
    }
  }
  return NcclLibrary(name, f);
}

absl::Status NcclLibrary::Check(nccl_abi::Result result, const std::string& what) const {
  if (result == 0) return absl::OkStatus();
  const char* text = functions_.GetErrorString != nullptr ? functions_.GetErrorString(result) : nullptr;
  return absl::InternalError(what + ": NCCL error " + std::to_string(result) + ": " +
                             (text != nullptr ? text : "unknown"));
}

}  // namespace hmo::gpu
