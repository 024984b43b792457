#ifndef HMO_BACKENDS_GPU_NCCL_NCCL_LIBRARY_H_
#define HMO_BACKENDS_GPU_NCCL_NCCL_LIBRARY_H_

// NCCL, loaded at run time with dlopen: hmo neither builds against nccl.h
// nor links libnccl, so the GPU backend works (single-device) where NCCL is
// not installed, and multi-GPU collectives light up where it is.
//
// The entry points used (all return ncclResult_t, 0 = ncclSuccess):
//   ncclGetUniqueId(ncclUniqueId*)
//   ncclCommInitRank(ncclComm_t*, int nranks, ncclUniqueId, int rank)
//   ncclCommDestroy(ncclComm_t)
//   ncclAllReduce(const void* send, void* recv, size_t count, dtype, op, comm, stream)
//   ncclAllGather(const void* send, void* recv, size_t send_count, dtype, comm, stream)
//   ncclReduceScatter(const void* send, void* recv, size_t recv_count, dtype, op, comm, stream)
//   ncclSend(const void* send, size_t count, dtype, int peer, comm, stream)
//   ncclRecv(void* recv, size_t count, dtype, int peer, comm, stream)
//   ncclGroupStart(), ncclGroupEnd()   (to pair sends and receives)
//   const char* ncclGetErrorString(ncclResult_t)
// and, optional (null when the loaded library lacks them; Load still
// succeeds and the collectives needing them report UNIMPLEMENTED):
//   ncclCommSplit(ncclComm_t, int color, int key, ncclComm_t* new, ncclConfig_t* config)
//       (NCCL >= 2.18; color NCCL_SPLIT_NOCOLOR = -1 joins no new communicator)
//   ncclBroadcast(const void* send, void* recv, size_t count, dtype, int root, comm, stream)
// The ABI types below restate NCCL's public header (nccl.h, NCCL 2.x):
// an opaque communicator pointer, a 128-byte unique id, and the integer
// values of ncclDataType_t / ncclRedOp_t.

#include <cstddef>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace hmo::gpu {

namespace nccl_abi {

using Result = int;  // ncclResult_t; 0 is ncclSuccess
using Comm = struct OpaqueComm*;
using Stream = void*;  // cudaStream_t
struct UniqueId {
  char internal[128];
};
enum DataType : int {
  kInt8 = 0, kUint8 = 1, kInt32 = 2, kUint32 = 3, kInt64 = 4, kUint64 = 5,
  kFloat16 = 6, kFloat32 = 7, kFloat64 = 8, kBfloat16 = 9,
};
enum RedOp : int { kSum = 0, kProd = 1, kMax = 2, kMin = 3 };
// ncclCommSplit's color for ranks that join no new communicator.
inline constexpr int kSplitNoColor = -1;

}  // namespace nccl_abi

struct NcclFunctions {
  nccl_abi::Result (*GetUniqueId)(nccl_abi::UniqueId*) = nullptr;
  nccl_abi::Result (*CommInitRank)(nccl_abi::Comm*, int, nccl_abi::UniqueId, int) = nullptr;
  nccl_abi::Result (*CommDestroy)(nccl_abi::Comm) = nullptr;
  nccl_abi::Result (*AllReduce)(const void*, void*, size_t, int, int, nccl_abi::Comm, nccl_abi::Stream) = nullptr;
  nccl_abi::Result (*AllGather)(const void*, void*, size_t, int, nccl_abi::Comm, nccl_abi::Stream) = nullptr;
  nccl_abi::Result (*ReduceScatter)(const void*, void*, size_t, int, int, nccl_abi::Comm, nccl_abi::Stream) = nullptr;
  nccl_abi::Result (*Send)(const void*, size_t, int, int, nccl_abi::Comm, nccl_abi::Stream) = nullptr;
  nccl_abi::Result (*Recv)(void*, size_t, int, int, nccl_abi::Comm, nccl_abi::Stream) = nullptr;
  nccl_abi::Result (*GroupStart)() = nullptr;
  nccl_abi::Result (*GroupEnd)() = nullptr;
  const char* (*GetErrorString)(nccl_abi::Result) = nullptr;
  // Optional.
  nccl_abi::Result (*CommSplit)(nccl_abi::Comm, int, int, nccl_abi::Comm*, void*) = nullptr;
  nccl_abi::Result (*Broadcast)(const void*, void*, size_t, int, int, nccl_abi::Comm,
                                nccl_abi::Stream) = nullptr;
};

class NcclLibrary {
 public:
  // The library NCCL installs (its soname).
  static constexpr const char* kDefaultName = "libnccl.so.2";

  // dlopen(`name`) and resolves every entry point above. UNAVAILABLE naming
  // the library when it cannot be loaded (with dlerror's reason), or naming
  // the first missing required entry point. The handle stays open for the process's
  // lifetime (NCCL keeps threads that must not outlive their code).
  static absl::StatusOr<NcclLibrary> Load(const std::string& name = kDefaultName);
  // A library whose entry points are `functions` (tests: fakes that record
  // the calls instead of moving bytes).
  static NcclLibrary ForTesting(std::string name, NcclFunctions functions) {
    return NcclLibrary(std::move(name), functions);
  }

  const NcclFunctions& functions() const { return functions_; }
  const std::string& name() const { return name_; }

  // OK for ncclSuccess; else INTERNAL "<what>: NCCL error <code>: <text>".
  absl::Status Check(nccl_abi::Result result, const std::string& what) const;

 private:
  NcclLibrary(std::string name, NcclFunctions functions) : name_(std::move(name)), functions_(functions) {}

  std::string name_;
  NcclFunctions functions_;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_NCCL_NCCL_LIBRARY_H_
