#include "gpu/nccl/host_collective_transport.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace hmo::gpu {
namespace {

template <typename T>
T Combine(T a, T b, ReductionKind reduction) {
  switch (reduction) {
    case ReductionKind::kSum: return static_cast<T>(a + b);
    case ReductionKind::kProduct: return static_cast<T>(a * b);
    case ReductionKind::kMin: return std::min(a, b);
    case ReductionKind::kMax: return std::max(a, b);
  }
  return a;
}

// out[i] = reduce over ranks r of inputs[r][offset + i], i < count.
template <typename T>
void ReduceTyped(const std::vector<const void*>& inputs, int64_t offset, int64_t count, ReductionKind reduction,
                 char* out) {
  T* result = reinterpret_cast<T*>(out);
  for (int64_t i = 0; i < count; ++i) {
    T value = static_cast<const T*>(inputs[0])[offset + i];
    for (size_t r = 1; r < inputs.size(); ++r) value = Combine(value, static_cast<const T*>(inputs[r])[offset + i], reduction);
    result[i] = value;
  }
}

absl::Status Reduce(const std::vector<const void*>& inputs, int64_t offset, int64_t count, HostElementType type,
                    ReductionKind reduction, char* out) {
  switch (type) {
    case HostElementType::kS8: ReduceTyped<int8_t>(inputs, offset, count, reduction, out); break;
    case HostElementType::kS16: ReduceTyped<int16_t>(inputs, offset, count, reduction, out); break;
    case HostElementType::kS32: ReduceTyped<int32_t>(inputs, offset, count, reduction, out); break;
    case HostElementType::kS64: ReduceTyped<int64_t>(inputs, offset, count, reduction, out); break;
    case HostElementType::kU8: ReduceTyped<uint8_t>(inputs, offset, count, reduction, out); break;
    case HostElementType::kU16: ReduceTyped<uint16_t>(inputs, offset, count, reduction, out); break;
    case HostElementType::kU32: ReduceTyped<uint32_t>(inputs, offset, count, reduction, out); break;
    case HostElementType::kU64: ReduceTyped<uint64_t>(inputs, offset, count, reduction, out); break;
    case HostElementType::kF32: ReduceTyped<float>(inputs, offset, count, reduction, out); break;
    case HostElementType::kF64: ReduceTyped<double>(inputs, offset, count, reduction, out); break;
    default:
      return absl::UnimplementedError("host collectives: no reduction for element type " +
                                      std::string(HostElementTypeName(type)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status HostCollectiveTransport::Copy(void* destination, const void* source, size_t bytes) {
  if (bytes > 0 && destination != source) std::memmove(destination, source, bytes);
  return absl::OkStatus();
}

absl::Status HostCollectiveTransport::Zero(void* destination, size_t bytes) {
  if (bytes > 0) std::memset(destination, 0, bytes);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<const void*>> HostCollectiveTransport::ExchangeSendBuffers(const void* send,
                                                                                     std::string_view what) {
  ++round_;
  const std::string key = clique_name_ + "/" + std::string(what) + "/" + std::to_string(round_);
  return rendezvous_.AllGather<const void*>(key, num_ranks_, rank_, send, absl::Now() + timeout_);
}

absl::Status HostCollectiveTransport::WaitUntilAllRead(std::string_view what) {
  const std::string key = clique_name_ + "/" + std::string(what) + "/" + std::to_string(round_) + "/read";
  return rendezvous_.AllGather<int>(key, num_ranks_, rank_, rank_, absl::Now() + timeout_).status();
}

absl::Status HostCollectiveTransport::AllReduce(const void* send, void* receive, int64_t count,
                                                HostElementType type, ReductionKind reduction) {
  absl::StatusOr<std::vector<const void*>> inputs = ExchangeSendBuffers(send, "all-reduce");
  if (!inputs.ok()) return inputs.status();
  std::vector<char> result(static_cast<size_t>(count) * ByteWidth(type));
  absl::Status reduced = Reduce(*inputs, 0, count, type, reduction, result.data());
  // Arrive even after a failed reduction so the peers do not time out.
  absl::Status read = WaitUntilAllRead("all-reduce");
  if (!reduced.ok()) return reduced;
  if (!read.ok()) return read;
  return Copy(receive, result.data(), result.size());
}

absl::Status HostCollectiveTransport::AllGather(const void* send, void* receive, int64_t send_count,
                                                HostElementType type) {
  absl::StatusOr<std::vector<const void*>> inputs = ExchangeSendBuffers(send, "all-gather");
  if (!inputs.ok()) return inputs.status();
  const size_t bytes = static_cast<size_t>(send_count) * ByteWidth(type);
  std::vector<char> result(bytes * inputs->size());
  for (size_t r = 0; r < inputs->size(); ++r) std::memcpy(result.data() + r * bytes, (*inputs)[r], bytes);
  if (absl::Status read = WaitUntilAllRead("all-gather"); !read.ok()) return read;
  return Copy(receive, result.data(), result.size());
}

absl::Status HostCollectiveTransport::ReduceScatter(const void* send, void* receive, int64_t receive_count,
                                                    HostElementType type, ReductionKind reduction) {
  absl::StatusOr<std::vector<const void*>> inputs = ExchangeSendBuffers(send, "reduce-scatter");
  if (!inputs.ok()) return inputs.status();
  std::vector<char> result(static_cast<size_t>(receive_count) * ByteWidth(type));
  absl::Status reduced = Reduce(*inputs, rank_ * receive_count, receive_count, type, reduction, result.data());
  absl::Status read = WaitUntilAllRead("reduce-scatter");
  if (!reduced.ok()) return reduced;
  if (!read.ok()) return read;
  return Copy(receive, result.data(), result.size());
}

absl::Status HostCollectiveTransport::SendReceive(const void* send, int target, void* receive, int source,
                                                  int64_t count, HostElementType type) {
  (void)target;  // the receiver pulls from its source
  absl::StatusOr<std::vector<const void*>> inputs = ExchangeSendBuffers(send, "collective-permute");
  if (!inputs.ok()) return inputs.status();
  std::vector<char> result;
  if (source >= 0) {
    const char* from = static_cast<const char*>((*inputs)[source]);
    result.assign(from, from + static_cast<size_t>(count) * ByteWidth(type));
  }
  if (absl::Status read = WaitUntilAllRead("collective-permute"); !read.ok()) return read;
  return source >= 0 ? Copy(receive, result.data(), result.size()) : absl::OkStatus();
}

}  // namespace hmo::gpu
