#include "gpu/nccl/cuda_collective_transport.h"

#include <string>
#include <utility>

#include "hmo/gpu/cuda_device_query.h"

namespace hmo::gpu {

namespace {

// NCCL's data types, one row per element type it has (nccl.h's values).
struct NcclTypeRow {
  HostElementType host;
  PrimitiveType primitive;
  nccl_abi::DataType nccl;
};
constexpr NcclTypeRow kNcclTypes[] = {
    {HostElementType::kS8, PrimitiveType::S8, nccl_abi::kInt8},
    {HostElementType::kU8, PrimitiveType::U8, nccl_abi::kUint8},
    {HostElementType::kS32, PrimitiveType::S32, nccl_abi::kInt32},
    {HostElementType::kU32, PrimitiveType::U32, nccl_abi::kUint32},
    {HostElementType::kS64, PrimitiveType::S64, nccl_abi::kInt64},
    {HostElementType::kU64, PrimitiveType::U64, nccl_abi::kUint64},
    {HostElementType::kF16, PrimitiveType::F16, nccl_abi::kFloat16},
    {HostElementType::kBF16, PrimitiveType::BF16, nccl_abi::kBfloat16},
    {HostElementType::kF32, PrimitiveType::F32, nccl_abi::kFloat32},
    {HostElementType::kF64, PrimitiveType::F64, nccl_abi::kFloat64},
};

}  // namespace

absl::StatusOr<nccl_abi::DataType> NcclDataType(HostElementType type) {
  for (const NcclTypeRow& row : kNcclTypes) {
    if (row.host == type) return row.nccl;
  }
  return absl::UnimplementedError("NCCL has no data type for " +
                                  std::string(HostElementTypeName(type)));
}

absl::StatusOr<nccl_abi::DataType> NcclDataType(PrimitiveType type) {
  for (const NcclTypeRow& row : kNcclTypes) {
    if (row.primitive == type) return row.nccl;
  }
  return absl::UnimplementedError("NCCL has no data type for " +
                                  std::string(PrimitiveTypeName(type)));
}

namespace {

nccl_abi::RedOp NcclRedOp(ReductionKind reduction) {
  switch (reduction) {
    case ReductionKind::kSum: return nccl_abi::kSum;
    case ReductionKind::kProduct: return nccl_abi::kProd;
    case ReductionKind::kMin: return nccl_abi::kMin;
    case ReductionKind::kMax: return nccl_abi::kMax;
  }
  return nccl_abi::kSum;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaCollectiveTransport>> CudaCollectiveTransport::CreateSingleRank(void* stream) {
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) return absl::UnavailableError("no CUDA device: " + std::string(devices.status().message()));
  return std::unique_ptr<CudaCollectiveTransport>(new CudaCollectiveTransport(
      nullptr, nullptr, false, 0, 1, stream, CreateCudaStreamMemoryOps(stream)));
}

absl::StatusOr<std::unique_ptr<CudaCollectiveTransport>> CudaCollectiveTransport::Create(
    const NcclLibrary& nccl, int num_ranks, int rank, const nccl_abi::UniqueId& id, void* stream) {
  if (num_ranks <= 0 || rank < 0 || rank >= num_ranks) {
    return absl::InvalidArgumentError("rank " + std::to_string(rank) + " of " + std::to_string(num_ranks));
  }
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) return absl::UnavailableError("no CUDA device: " + std::string(devices.status().message()));
  nccl_abi::Comm comm = nullptr;
  absl::Status init = nccl.Check(nccl.functions().CommInitRank(&comm, num_ranks, id, rank), "ncclCommInitRank");
  if (!init.ok()) return init;
  return std::unique_ptr<CudaCollectiveTransport>(new CudaCollectiveTransport(
      &nccl, comm, true, rank, num_ranks, stream, CreateCudaStreamMemoryOps(stream)));
}

std::unique_ptr<CudaCollectiveTransport> CudaCollectiveTransport::CreateForTesting(
    const NcclLibrary& nccl, nccl_abi::Comm comm, int rank, int num_ranks,
    std::unique_ptr<DeviceMemoryOps> memory) {
  return std::unique_ptr<CudaCollectiveTransport>(
      new CudaCollectiveTransport(&nccl, comm, false, rank, num_ranks, nullptr, std::move(memory)));
}

CudaCollectiveTransport::CudaCollectiveTransport(const NcclLibrary* nccl, nccl_abi::Comm comm,
                                                 bool owns_comm, int rank, int num_ranks,
                                                 void* stream,
                                                 std::unique_ptr<DeviceMemoryOps> memory)
    : nccl_(nccl),
      comm_(comm),
      owns_comm_(owns_comm),
      rank_(rank),
      num_ranks_(num_ranks),
      stream_(stream),
      memory_(std::move(memory)) {
  if (nccl_ != nullptr && comm_ != nullptr) {
    groups_ = std::make_unique<NcclGroupCommunicators>(*nccl_, comm_, rank_, num_ranks_);
  }
}

CudaCollectiveTransport::~CudaCollectiveTransport() {
  // Scratch may still be read by queued work; teardown cannot report errors.
  if (scratch_ != nullptr) {
    (void)memory_->Synchronize();
    memory_->Free(scratch_);
  }
  groups_.reset();  // split from comm_
  if (owns_comm_ && nccl_ != nullptr && comm_ != nullptr) nccl_->functions().CommDestroy(comm_);
}

absl::Status CudaCollectiveTransport::Copy(void* destination, const void* source, size_t bytes) {
  return memory_->Copy(destination, source, bytes);
}

absl::Status CudaCollectiveTransport::Zero(void* destination, size_t bytes) {
  return memory_->Zero(destination, bytes);
}

absl::Status CudaCollectiveTransport::Synchronize() { return memory_->Synchronize(); }

absl::Status CudaCollectiveTransport::Grouped(const std::function<absl::Status()>& calls) {
  const NcclFunctions& f = nccl_->functions();
  if (absl::Status s = nccl_->Check(f.GroupStart(), "ncclGroupStart"); !s.ok()) return s;
  absl::Status status = calls();
  absl::Status end = nccl_->Check(f.GroupEnd(), "ncclGroupEnd");
  return status.ok() ? end : status;
}

absl::StatusOr<char*> CudaCollectiveTransport::Scratch(size_t bytes) {
  if (bytes <= scratch_bytes_) return scratch_;
  if (scratch_ != nullptr) {
    // The old scratch may still be read by work queued on the stream.
    if (absl::Status s = memory_->Synchronize(); !s.ok()) return s;
    memory_->Free(scratch_);
    scratch_ = nullptr;
    scratch_bytes_ = 0;
  }
  absl::StatusOr<void*> allocated = memory_->Allocate(bytes);
  if (!allocated.ok()) return allocated.status();
  scratch_ = static_cast<char*>(*allocated);
  scratch_bytes_ = bytes;
  return scratch_;
}

absl::Status CudaCollectiveTransport::RequireNccl(const char* what) const {
  if (nccl_ == nullptr || comm_ == nullptr) {
    return absl::FailedPreconditionError(std::string(what) +
                                         " across ranks needs an NCCL communicator");
  }
  return absl::OkStatus();
}

absl::Status CudaCollectiveTransport::AllReduce(const void* send, void* receive, int64_t count,
                                                HostElementType type, ReductionKind reduction) {
  if (absl::Status s = RequireNccl("all-reduce"); !s.ok()) return s;
  absl::StatusOr<nccl_abi::DataType> dtype = NcclDataType(type);
  if (!dtype.ok()) return dtype.status();
  return nccl_->Check(nccl_->functions().AllReduce(send, receive, static_cast<size_t>(count), *dtype,
                                                   NcclRedOp(reduction), comm_, stream_),
                      "ncclAllReduce");
}

absl::Status CudaCollectiveTransport::AllGather(const void* send, void* receive, int64_t send_count,
                                                HostElementType type) {
  if (absl::Status s = RequireNccl("all-gather"); !s.ok()) return s;
  absl::StatusOr<nccl_abi::DataType> dtype = NcclDataType(type);
  if (!dtype.ok()) return dtype.status();
  return nccl_->Check(
      nccl_->functions().AllGather(send, receive, static_cast<size_t>(send_count), *dtype, comm_, stream_),
      "ncclAllGather");
}

absl::Status CudaCollectiveTransport::ReduceScatter(const void* send, void* receive, int64_t receive_count,
                                                    HostElementType type, ReductionKind reduction) {
  if (absl::Status s = RequireNccl("reduce-scatter"); !s.ok()) return s;
  absl::StatusOr<nccl_abi::DataType> dtype = NcclDataType(type);
  if (!dtype.ok()) return dtype.status();
  return nccl_->Check(nccl_->functions().ReduceScatter(send, receive, static_cast<size_t>(receive_count), *dtype,
                                                       NcclRedOp(reduction), comm_, stream_),
                      "ncclReduceScatter");
}

absl::Status CudaCollectiveTransport::SendReceive(const void* send, int target, void* receive, int source,
                                                  int64_t count, HostElementType type) {
  if (absl::Status s = RequireNccl("collective-permute"); !s.ok()) return s;
  absl::StatusOr<nccl_abi::DataType> dtype = NcclDataType(type);
  if (!dtype.ok()) return dtype.status();
  const NcclFunctions& f = nccl_->functions();
  // Grouped, so a ring of sends and receives cannot deadlock.
  if (absl::Status s = nccl_->Check(f.GroupStart(), "ncclGroupStart"); !s.ok()) return s;
  absl::Status status;
  if (target >= 0) {
    status = nccl_->Check(f.Send(send, static_cast<size_t>(count), *dtype, target, comm_, stream_), "ncclSend");
  }
  if (status.ok() && source >= 0) {
    status = nccl_->Check(f.Recv(receive, static_cast<size_t>(count), *dtype, source, comm_, stream_), "ncclRecv");
  }
  absl::Status end = nccl_->Check(f.GroupEnd(), "ncclGroupEnd");
  return status.ok() ? end : status;
}

}  // namespace hmo::gpu
