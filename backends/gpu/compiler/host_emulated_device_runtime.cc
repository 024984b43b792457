#include "gpu/compiler/host_emulated_device_runtime.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <cblas.h>

#include "gpu/blas/cublas_gemm_arguments.h"
#include "hmo/base/status_macros.h"
#include "hmo/collectives/rendezvous.h"
#include "gpu/nccl/host_collective_transport.h"

namespace hmo::gpu {
namespace {

using Clock = std::chrono::steady_clock;

struct AlignedFree {
  void operator()(char* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<char, AlignedFree>;

// Collectives as plans run by a DeviceCollectives as device `rank`: a
// clique of one (its own InProcessCollectives) or a process of an MPI launch
// (MpiCollectives). Copies and Zero are on the emulated compute stream
// (eager: plain memmove / memset).
class HostPlanTransport final : public CollectiveTransport {
 public:
  // A clique of one.
  HostPlanTransport() : plans_(alone_), rank_(0), num_ranks_(1) {}
  HostPlanTransport(collectives::DeviceCollectives& plans, int rank, int num_ranks)
      : plans_(plans), rank_(rank), num_ranks_(num_ranks) {}

  int rank() const override { return rank_; }
  int num_ranks() const override { return num_ranks_; }
  absl::Status Copy(void* destination, const void* source, size_t bytes) override {
    std::memmove(destination, source, bytes);
    return absl::OkStatus();
  }
  absl::Status Zero(void* destination, size_t bytes) override {
    std::memset(destination, 0, bytes);
    return absl::OkStatus();
  }
  // RunsPlans: the thunks never hand it CollectiveOps.
  absl::Status AllReduce(const void*, void*, int64_t, HostElementType, ReductionKind) override {
    return PlansOnly();
  }
  absl::Status AllGather(const void*, void*, int64_t, HostElementType) override {
    return PlansOnly();
  }
  absl::Status ReduceScatter(const void*, void*, int64_t, HostElementType, ReductionKind) override {
    return PlansOnly();
  }
  absl::Status SendReceive(const void*, int, void*, int, int64_t, HostElementType) override {
    return PlansOnly();
  }
  bool RunsPlans() const override { return true; }
  absl::Status RunPlan(const collectives::CollectivePlan& plan, absl::Span<const void* const> send,
                       absl::Span<void* const> receive) override {
    return plans_.Run(plan, rank_, send, receive);
  }

 private:
  static absl::Status PlansOnly() {
    return absl::InternalError("GPU host emulation: a plan transport got a CollectiveOp");
  }
  collectives::InProcessCollectives alone_;  // before plans_, which may name it
  collectives::DeviceCollectives& plans_;
  int rank_;
  int num_ranks_;
};

// The replicas of an emulated clique are host threads meeting at one
// rendezvous.
class HostClique final : public CollectiveClique {
 public:
  explicit HostClique(int num_ranks) : num_ranks_(num_ranks) {}
  int num_ranks() const override { return num_ranks_; }
  std::string_view runtime_name() const override { return "host-emulation"; }
  collectives::Rendezvous& rendezvous() { return rendezvous_; }
  collectives::InProcessCollectives& plans() { return plans_; }

 private:
  int num_ranks_;
  collectives::Rendezvous rendezvous_;
  collectives::InProcessCollectives plans_;
};

class HostEmulatedDeviceRuntime final : public GpuDeviceRuntime {
 public:
  explicit HostEmulatedDeviceRuntime(std::shared_ptr<const HostKernelLibrary> kernels)
      : library_(std::move(kernels)), start_(Clock::now()) {}

  std::string_view name() const override { return "host-emulation"; }

  absl::Status LoadKernels(const GpuKernelModule& kernels) override {
    for (const GpuKernel& kernel : kernels.kernels) {
      HMO_ASSIGN_OR_RETURN(int64_t index, library_->Find(kernel.name));
      host_index_.push_back(index);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<char*> AllocateDevice(int64_t bytes) override {
    HMO_ASSIGN_OR_RETURN(char* pointer, Allocate(bytes));
    device_bytes_ += bytes;
    return pointer;
  }

  absl::StatusOr<char*> AllocatePinnedHost(int64_t bytes) override { return Allocate(bytes); }

  int64_t DeviceBytesInUse() override { return device_bytes_; }

  absl::Status Launch(int64_t kernel, const LaunchDimensions& launch, char** buffer_table) override {
    if (kernel < 0 || kernel >= static_cast<int64_t>(host_index_.size())) {
      return absl::InternalError("GPU host emulation: no loaded kernel " + std::to_string(kernel));
    }
    library_->Run(host_index_[kernel], launch, buffer_table);
    return absl::OkStatus();
  }

  bool HasGemm() override { return true; }

  // The column-major call cuBLAS would get (MapGemmToCublas), made to
  // OpenBLAS: the descriptor-to-BLAS mapping runs here exactly as on a GPU.
  absl::Status Gemm(const GemmDescriptor& gemm, const void* lhs, const void* rhs, void* out) override {
    HMO_ASSIGN_OR_RETURN(CublasGemmArguments args, MapGemmToCublas(gemm));
    HMO_RETURN_IF_ERROR(CheckCublasIntRange(args));
    if (args.m == 0 || args.n == 0) return absl::OkStatus();
    const bool f64 = gemm.element_type == GemmElementType::kF64;
    const int64_t element = GemmElementBytes(gemm.element_type);
    const char* a = static_cast<const char*>(args.a == GemmOperand::kLhs ? lhs : rhs);
    const char* b = static_cast<const char*>(args.b == GemmOperand::kLhs ? lhs : rhs);
    char* c = static_cast<char*>(out);
    auto op = [](cublas_abi::Operation t) { return t == cublas_abi::kOpN ? CblasNoTrans : CblasTrans; };
    for (int64_t i = 0; i < args.batch_count; ++i) {
      const char* ai = a + i * args.stride_a * element;
      const char* bi = b + i * args.stride_b * element;
      char* ci = c + i * args.stride_c * element;
      if (args.k == 0) {
        for (int64_t col = 0; col < args.n; ++col) std::memset(ci + col * args.ldc * element, 0, args.m * element);
        continue;
      }
      const int m = static_cast<int>(args.m), n = static_cast<int>(args.n), k = static_cast<int>(args.k);
      if (f64) {
        cblas_dgemm(CblasColMajor, op(args.transa), op(args.transb), m, n, k, 1.0,
                    reinterpret_cast<const double*>(ai), static_cast<int>(args.lda),
                    reinterpret_cast<const double*>(bi), static_cast<int>(args.ldb), 0.0,
                    reinterpret_cast<double*>(ci), static_cast<int>(args.ldc));
      } else {
        cblas_sgemm(CblasColMajor, op(args.transa), op(args.transb), m, n, k, 1.0f,
                    reinterpret_cast<const float*>(ai), static_cast<int>(args.lda),
                    reinterpret_cast<const float*>(bi), static_cast<int>(args.ldb), 0.0f,
                    reinterpret_cast<float*>(ci), static_cast<int>(args.ldc));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CopyAsync(GpuStream stream, void* destination, const void* source, int64_t bytes) override {
    if (stream == GpuStream::kCompute) {
      std::memmove(destination, source, static_cast<size_t>(bytes));
      return absl::OkStatus();
    }
    if (!IsRuntimeMemory(source, bytes)) {
      // A pageable source may be reused when the call returns: stage it.
      auto staged = std::make_shared<std::vector<char>>(static_cast<const char*>(source),
                                                        static_cast<const char*>(source) + bytes);
      copy_queue_.push_back([destination, staged] { std::memcpy(destination, staged->data(), staged->size()); });
    } else {
      copy_queue_.push_back(
          [destination, source, bytes] { std::memmove(destination, source, static_cast<size_t>(bytes)); });
    }
    ++copy_enqueued_;
    return absl::OkStatus();
  }

  absl::StatusOr<GpuEvent> CreateEvent(bool /*timing*/) override {
    events_.emplace_back();
    return static_cast<GpuEvent>(events_.size() - 1);
  }

  absl::Status RecordEvent(GpuEvent event, GpuStream stream) override {
    HMO_ASSIGN_OR_RETURN(EventState * state, Event(event));
    state->stream = stream;
    state->recorded = true;
    if (stream == GpuStream::kCompute) {
      state->seconds = Now();
      state->copy_position = 0;
      return absl::OkStatus();
    }
    copy_queue_.push_back([this, state] { state->seconds = Now(); });
    state->copy_position = ++copy_enqueued_;
    return absl::OkStatus();
  }

  absl::Status WaitEvent(GpuStream waiter, GpuEvent event) override {
    HMO_ASSIGN_OR_RETURN(EventState * state, Event(event));
    if (!state->recorded) return absl::OkStatus();  // as CUDA: waiting on an unrecorded event is a no-op
    // The copy stream waiting on compute work: the compute stream is eager,
    // so that work is done. The compute stream waiting on copies: run them.
    if (waiter == GpuStream::kCompute && state->stream == GpuStream::kCopy) RunCopiesThrough(state->copy_position);
    return absl::OkStatus();
  }

  absl::StatusOr<double> ElapsedSeconds(GpuEvent start, GpuEvent end) override {
    HMO_ASSIGN_OR_RETURN(EventState * a, Event(start));
    HMO_ASSIGN_OR_RETURN(EventState * b, Event(end));
    if (a->seconds < 0 || b->seconds < 0) {
      return absl::FailedPreconditionError("GPU host emulation: timing event has not completed");
    }
    return b->seconds - a->seconds;
  }

  absl::Status Synchronize(GpuStream stream) override {
    if (stream == GpuStream::kCopy) RunCopiesThrough(copy_enqueued_);
    return absl::OkStatus();
  }

  absl::Status BindToCallingThread() override { return absl::OkStatus(); }

  absl::StatusOr<std::unique_ptr<CollectiveTransport>> CreateSingleRankCollectives() override {
    return std::unique_ptr<CollectiveTransport>(std::make_unique<HostPlanTransport>());
  }

  absl::StatusOr<std::shared_ptr<CollectiveClique>> CreateClique(int num_ranks) override {
    if (num_ranks < 1) return absl::InvalidArgumentError("GPU host emulation: a clique needs at least one rank");
    return std::shared_ptr<CollectiveClique>(std::make_shared<HostClique>(num_ranks));
  }

  // The compute stream is eager, so the transport's host-side collectives
  // are in stream order. A peer that does not arrive within the deadline
  // (another replica failed) fails the collective with DEADLINE_EXCEEDED.
  absl::StatusOr<std::unique_ptr<CollectiveTransport>> JoinClique(CollectiveClique& clique, int rank) override {
    if (clique.runtime_name() != name()) {
      return absl::InvalidArgumentError("GPU host emulation: cannot join a clique of the " +
                                        std::string(clique.runtime_name()) + " runtime");
    }
    if (rank < 0 || rank >= clique.num_ranks()) {
      return absl::InvalidArgumentError("GPU host emulation: rank " + std::to_string(rank) + " of a clique of " +
                                        std::to_string(clique.num_ranks()));
    }
    auto& host = static_cast<HostClique&>(clique);
    return std::unique_ptr<CollectiveTransport>(std::make_unique<HostCollectiveTransport>(
        host.rendezvous(), "replicas", rank, host.num_ranks(), absl::Seconds(10), &host.plans()));
  }

  // The device's collectives meet the other processes' over MPI, in stream
  // order (the compute stream is eager).
  absl::StatusOr<std::unique_ptr<CollectiveTransport>> JoinLaunch(
      collectives::MpiCollectives& mpi) override {
    return std::unique_ptr<CollectiveTransport>(
        std::make_unique<HostPlanTransport>(mpi, mpi.process(), mpi.process_count()));
  }

 private:
  struct EventState {
    GpuStream stream = GpuStream::kCompute;
    bool recorded = false;
    int64_t copy_position = 0;  // copy-stream operations up to and including this event
    double seconds = -1;
  };

  double Now() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  absl::StatusOr<EventState*> Event(GpuEvent event) {
    if (event < 0 || event >= static_cast<GpuEvent>(events_.size())) {
      return absl::InternalError("GPU host emulation: unknown event " + std::to_string(event));
    }
    return &events_[event];
  }

  absl::StatusOr<char*> Allocate(int64_t bytes) {
    const size_t rounded = (static_cast<size_t>(std::max<int64_t>(bytes, 1)) + 255) / 256 * 256;
    char* pointer = static_cast<char*>(std::aligned_alloc(256, rounded));
    if (pointer == nullptr) {
      return absl::ResourceExhaustedError("GPU host emulation: cannot allocate " + std::to_string(bytes) + " bytes");
    }
    allocations_.emplace_back(pointer);
    ranges_.emplace_back(pointer, pointer + rounded);
    return pointer;
  }

  bool IsRuntimeMemory(const void* pointer, int64_t bytes) const {
    const char* p = static_cast<const char*>(pointer);
    for (const auto& [begin, end] : ranges_) {
      if (p >= begin && p + bytes <= end) return true;
    }
    return false;
  }

  void RunCopiesThrough(int64_t position) {
    while (copy_executed_ < position && !copy_queue_.empty()) {
      std::function<void()> op = std::move(copy_queue_.front());
      copy_queue_.pop_front();
      ++copy_executed_;
      op();
    }
  }

  std::shared_ptr<const HostKernelLibrary> library_;
  std::vector<int64_t> host_index_;
  Clock::time_point start_;
  std::vector<AlignedBuffer> allocations_;
  std::vector<std::pair<const char*, const char*>> ranges_;
  int64_t device_bytes_ = 0;
  std::deque<EventState> events_;  // stable addresses: the copy queue refers to them
  std::deque<std::function<void()>> copy_queue_;
  int64_t copy_enqueued_ = 0;
  int64_t copy_executed_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<GpuDeviceRuntime>> CreateHostEmulatedDeviceRuntime(
    std::shared_ptr<const HostKernelLibrary> kernels) {
  if (kernels == nullptr) return absl::InvalidArgumentError("GPU host emulation: no host kernels");
  return std::unique_ptr<GpuDeviceRuntime>(std::make_unique<HostEmulatedDeviceRuntime>(std::move(kernels)));
}

}  // namespace hmo::gpu
