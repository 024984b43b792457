#include "gpu/compiler/gpu_executable.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <utility>

#include "gpu/compiler/cuda_device_runtime.h"
#include "hmo/codegen/runtime/layout_copy.h"
#include "fmt/format.h"
#include "hmo/base/loop_trip_budget.h"
#include "hmo/base/status_macros.h"
#include "hmo/collectives/launch_results.h"
#include "hmo/gpu/cuda_device_query.h"

namespace hmo::gpu {

struct GpuExecutable::DeviceState {
  GpuDeviceRuntime* runtime = nullptr;
  char* device_arena = nullptr;
  char* host_arena = nullptr;
  // Allocation index -> address (device, or pinned host), and its device copy.
  std::vector<char*> table;
  char** device_table = nullptr;
  // Single-rank collectives on the compute stream (null without any).
  std::unique_ptr<CollectiveTransport> collectives;

  char* Address(const BufferAssignment::Slice& slice) const { return table.at(slice.index) + slice.offset; }
};

namespace {

absl::StatusOr<BufferAssignment::Slice> UniqueSlice(const BufferAssignment& assignment,
                                                    const HloInstruction& instruction, const ShapeIndex& index) {
  const auto slices = assignment.GetAllSlices(&instruction, index);
  if (slices.size() != 1) {
    return absl::InternalError(fmt::format("GPU executable: {} at {} has {} slices, expected one",
                                           instruction.name(), ShapeIndexToString(index), slices.size()));
  }
  return *slices.begin();
}

// Runs a thunk plan on a runtime. Memory-space copies go to the copy stream
// and stay pending until a compute-stream thunk touches their bytes; only
// then does the compute stream wait for them (Thunk::reads / writes).
class ThunkRunner {
 public:
  // `max_loop_trips`: Executable::set_max_loop_trips's budget.
  ThunkRunner(GpuExecutable::DeviceState& state, const GpuKernelModule& kernels,
              bool record_timeline, int64_t max_loop_trips)
      : state_(state),
        runtime_(*state.runtime),
        kernels_(kernels),
        record_timeline_(record_timeline),
        max_loop_trips_(max_loop_trips) {}

  absl::Status Start() {
    if (!record_timeline_) return absl::OkStatus();
    HMO_ASSIGN_OR_RETURN(origin_, runtime_.CreateEvent(/*timing=*/true));
    return runtime_.RecordEvent(origin_, GpuStream::kCompute);
  }

  absl::Status Run(const ThunkSequence& sequence) {
    for (const Thunk& thunk : sequence) HMO_RETURN_IF_ERROR(RunThunk(thunk));
    return absl::OkStatus();
  }

  // The compute stream waits for every pending copy.
  absl::Status WaitForAllCopies() {
    for (const PendingCopy& copy : pending_) HMO_RETURN_IF_ERROR(runtime_.WaitEvent(GpuStream::kCompute, copy.done));
    for (const PendingCopy& copy : pending_) free_events_.push_back(copy.done);
    pending_.clear();
    return absl::OkStatus();
  }

  // After both streams are synchronized: the recorded spans.
  absl::StatusOr<std::vector<ExecutionProfile::StreamSpan>> Timeline() {
    std::vector<ExecutionProfile::StreamSpan> timeline;
    for (const Span& span : spans_) {
      HMO_ASSIGN_OR_RETURN(double start, runtime_.ElapsedSeconds(origin_, span.start));
      HMO_ASSIGN_OR_RETURN(double end, runtime_.ElapsedSeconds(origin_, span.end));
      timeline.push_back({span.stream == GpuStream::kCompute ? "compute" : "copy", span.label, start, end});
    }
    return timeline;
  }

 private:
  struct PendingCopy {
    const char* source = nullptr;
    const char* destination = nullptr;
    int64_t bytes = 0;
    GpuEvent done = -1;
  };
  struct Span {
    GpuStream stream;
    std::string label;
    GpuEvent start;
    GpuEvent end;
  };
  // Spans beyond this many are not recorded (long loops): events are not free.
  static constexpr size_t kMaxSpans = 20000;

  absl::StatusOr<GpuEvent> TakeEvent() {
    if (!free_events_.empty()) {
      GpuEvent event = free_events_.back();
      free_events_.pop_back();
      return event;
    }
    return runtime_.CreateEvent(/*timing=*/false);
  }

  static bool Overlaps(const char* a, int64_t a_bytes, const char* b, int64_t b_bytes) {
    return a < b + b_bytes && b < a + a_bytes;
  }

  // The compute stream waits for the pending copies that a thunk reading
  // `reads` and writing `writes` conflicts with: reading a copy's
  // destination (not there yet), writing its source (the copy may not have
  // read it yet) or its destination (the copy would overwrite it). Reading
  // the source while it is copied is fine.
  absl::Status WaitForConflictingCopies(const std::vector<BufferAssignment::Slice>& reads,
                                        const std::vector<BufferAssignment::Slice>& writes) {
    std::vector<PendingCopy> still_pending;
    for (const PendingCopy& copy : pending_) {
      bool touches = false;
      for (const BufferAssignment::Slice& slice : reads) {
        touches |= Overlaps(state_.Address(slice), slice.size, copy.destination, copy.bytes);
      }
      for (const BufferAssignment::Slice& slice : writes) {
        const char* address = state_.Address(slice);
        touches |= Overlaps(address, slice.size, copy.source, copy.bytes) ||
                   Overlaps(address, slice.size, copy.destination, copy.bytes);
      }
      if (touches) {
        HMO_RETURN_IF_ERROR(runtime_.WaitEvent(GpuStream::kCompute, copy.done));
        free_events_.push_back(copy.done);
      } else {
        still_pending.push_back(copy);
      }
    }
    pending_ = std::move(still_pending);
    return absl::OkStatus();
  }

  // Runs `op` on `stream` between two timing events when recording.
  absl::Status Timed(GpuStream stream, const HloInstruction* instruction, const std::function<absl::Status()>& op,
                     std::string_view suffix = "") {
    if (!record_timeline_ || spans_.size() >= kMaxSpans) return op();
    Span span{stream, (instruction != nullptr ? instruction->name() : "?") + std::string(suffix), -1, -1};
    HMO_ASSIGN_OR_RETURN(span.start, runtime_.CreateEvent(/*timing=*/true));
    HMO_ASSIGN_OR_RETURN(span.end, runtime_.CreateEvent(/*timing=*/true));
    HMO_RETURN_IF_ERROR(runtime_.RecordEvent(span.start, stream));
    HMO_RETURN_IF_ERROR(op());
    HMO_RETURN_IF_ERROR(runtime_.RecordEvent(span.end, stream));
    spans_.push_back(std::move(span));
    return absl::OkStatus();
  }

  // Reads a pred (1 byte) or s32 selector written by the compute stream.
  absl::StatusOr<int32_t> ReadSelector(const BufferAssignment::Slice& slice, bool is_pred) {
    HMO_RETURN_IF_ERROR(WaitForConflictingCopies({slice}, {}));
    int32_t value = 0;
    uint8_t pred = 0;
    void* destination = is_pred ? static_cast<void*>(&pred) : static_cast<void*>(&value);
    HMO_RETURN_IF_ERROR(
        runtime_.CopyAsync(GpuStream::kCompute, destination, state_.Address(slice), is_pred ? 1 : sizeof(int32_t)));
    HMO_RETURN_IF_ERROR(runtime_.Synchronize(GpuStream::kCompute));
    return is_pred ? (pred != 0 ? 1 : 0) : value;
  }

  absl::Status RunThunk(const Thunk& thunk) {
    switch (thunk.kind) {
      case Thunk::Kind::kKernel: {
        HMO_RETURN_IF_ERROR(WaitForConflictingCopies(thunk.reads, thunk.writes));
        if (thunk.gemm.has_value() && thunk.gemm->batch * thunk.gemm->m * thunk.gemm->n * thunk.gemm->k >= kMinGemmFlops &&
            runtime_.HasGemm()) {
          return Timed(GpuStream::kCompute, thunk.instruction, [&] {
            return runtime_.Gemm(*thunk.gemm, state_.Address(thunk.gemm_lhs), state_.Address(thunk.gemm_rhs),
                                 state_.Address(thunk.gemm_out));
          }, " (gemm)");
        }
        const GpuKernel& kernel = kernels_.kernels.at(thunk.kernel);
        return Timed(GpuStream::kCompute, thunk.instruction,
                     [&] { return runtime_.Launch(thunk.kernel, kernel.launch, state_.device_table); });
      }
      case Thunk::Kind::kCopy:
        HMO_RETURN_IF_ERROR(WaitForConflictingCopies(thunk.reads, thunk.writes));
        return Timed(GpuStream::kCompute, thunk.instruction, [&] {
          return runtime_.CopyAsync(GpuStream::kCompute, state_.Address(thunk.destination),
                                    state_.Address(thunk.source), thunk.bytes);
        });
      case Thunk::Kind::kMemorySpaceCopy: {
        // After everything the compute stream did so far (its producer, and
        // earlier readers of the destination).
        HMO_ASSIGN_OR_RETURN(GpuEvent ready, TakeEvent());
        HMO_RETURN_IF_ERROR(runtime_.RecordEvent(ready, GpuStream::kCompute));
        HMO_RETURN_IF_ERROR(runtime_.WaitEvent(GpuStream::kCopy, ready));
        free_events_.push_back(ready);
        PendingCopy copy{state_.Address(thunk.source), state_.Address(thunk.destination), thunk.bytes, -1};
        HMO_RETURN_IF_ERROR(Timed(GpuStream::kCopy, thunk.instruction, [&] {
          return runtime_.CopyAsync(GpuStream::kCopy, state_.Address(thunk.destination),
                                    state_.Address(thunk.source), thunk.bytes);
        }));
        HMO_ASSIGN_OR_RETURN(copy.done, TakeEvent());
        HMO_RETURN_IF_ERROR(runtime_.RecordEvent(copy.done, GpuStream::kCopy));
        pending_.push_back(copy);
        return absl::OkStatus();
      }
      case Thunk::Kind::kConditional: {
        HMO_ASSIGN_OR_RETURN(int32_t selector, ReadSelector(thunk.predicate, thunk.predicate_is_pred));
        const int64_t branches = static_cast<int64_t>(thunk.branches.size());
        // pred: true runs branch 0; an out-of-range index runs the last.
        int64_t branch = thunk.predicate_is_pred ? (selector != 0 ? 0 : 1) : selector;
        if (branch < 0 || branch >= branches) branch = branches - 1;
        return Run(thunk.branches[branch]);
      }
      case Thunk::Kind::kCollective:
        if (state_.collectives == nullptr) return absl::InternalError("GPU executable: no collective transport");
        HMO_RETURN_IF_ERROR(WaitForConflictingCopies(thunk.reads, thunk.writes));
        return Timed(GpuStream::kCompute, thunk.instruction, [&]() -> absl::Status {
          if (state_.collectives->RunsPlans()) {
            std::vector<const void*> send;
            std::vector<void*> receive;
            for (const BufferAssignment::Slice& slice : thunk.sends)
              send.push_back(state_.Address(slice));
            for (const BufferAssignment::Slice& slice : thunk.receives)
              receive.push_back(state_.Address(slice));
            return state_.collectives->RunPlan(*thunk.plan, send, receive);
          }
          if (!thunk.collective.has_value()) {
            // Only a clique of one gets here (multi-device transports run
            // plans): its copies cover what one CollectiveOp expresses.
            return absl::UnimplementedError(
                fmt::format("GPU executable: {} on a single CUDA device: {}",
                            thunk.plan->description, thunk.no_nccl_operation));
          }
          return RunCollective(*thunk.collective, state_.Address(thunk.source),
                               state_.Address(thunk.destination), *state_.collectives);
        });
      case Thunk::Kind::kWhile:
        for (int64_t trips = 0;; ++trips) {
          HMO_RETURN_IF_ERROR(Run(*thunk.condition));
          HMO_ASSIGN_OR_RETURN(int32_t go, ReadSelector(thunk.predicate, true));
          if (go == 0) break;
          if (max_loop_trips_ >= 0 && trips >= max_loop_trips_) {
            return LoopTripBudgetExceeded("GPU executable", thunk.instruction->name(),
                                          max_loop_trips_);
          }
          HMO_RETURN_IF_ERROR(Run(*thunk.body));
        }
        return absl::OkStatus();
    }
    return absl::InternalError("GPU executable: unknown thunk kind");
  }

  GpuExecutable::DeviceState& state_;
  GpuDeviceRuntime& runtime_;
  const GpuKernelModule& kernels_;
  bool record_timeline_;
  int64_t max_loop_trips_;
  GpuEvent origin_ = -1;
  std::vector<PendingCopy> pending_;
  std::vector<GpuEvent> free_events_;
  std::vector<Span> spans_;
};

}  // namespace

GpuExecutable::GpuExecutable(PreparedGpuModule prepared, GpuKernelModule kernels, ThunkPlan plan,
                             ExecutableStats stats, std::unique_ptr<GpuDeviceRuntime> runtime,
                             GpuReplicaRuntimeFactory replica_runtimes)
    : prepared_(std::move(prepared)),
      kernels_(std::move(kernels)),
      plan_(std::move(plan)),
      stats_(std::move(stats)),
      runtime_(std::move(runtime)),
      replica_runtime_factory_(std::move(replica_runtimes)) {}

GpuExecutable::~GpuExecutable() {
  // The state's collectives may use the runtime's streams.
  device_.reset();
  runtime_.reset();
  ReleaseReplicas();
}

void GpuExecutable::ReleaseReplicas() {
  // Transports first (they use the runtimes' streams and the clique), then
  // the runtimes, then the clique.
  replicas_.clear();
  replica_runtimes_.clear();
  clique_.reset();
}

absl::Status GpuExecutable::CheckArguments(absl::Span<const Literal> arguments) const {
  const HloComputation* entry = prepared_.module->entry_computation();
  if (static_cast<int64_t>(arguments.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(fmt::format("GPU executable: {} arguments given, the entry takes {}",
                                                  arguments.size(), entry->num_parameters()));
  }
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const Shape& expected = entry->parameter_instruction(i)->shape();
    const Shape& given = arguments[i].shape();
    if (!expected.IsArray()) {
      return absl::UnimplementedError(fmt::format(
          "GPU executable: parameter {} is tuple-shaped; only array parameters are supported", i));
    }
    if (!given.IsArray() || given.element_type() != expected.element_type() ||
        given.dimensions() != expected.dimensions()) {
      return absl::InvalidArgumentError(fmt::format("GPU executable: argument {} has shape {}, expected {}", i,
                                                    given.ToString(), expected.ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status GpuExecutable::InitializeDevice() {
  if (runtime_ == nullptr) {
    HMO_ASSIGN_OR_RETURN(runtime_, CreateCudaDeviceRuntime());
  }
  HMO_RETURN_IF_ERROR(runtime_->BindToCallingThread());
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<DeviceState> state, CreateDeviceState(*runtime_));
  if (plan_.has_collectives) {
    HMO_ASSIGN_OR_RETURN(state->collectives, runtime_->CreateSingleRankCollectives());
  }
  device_ = std::move(state);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<GpuExecutable::DeviceState>> GpuExecutable::CreateDeviceState(
    GpuDeviceRuntime& runtime) const {
  auto state = std::make_unique<DeviceState>();
  state->runtime = &runtime;
  HMO_RETURN_IF_ERROR(runtime.LoadKernels(kernels_));

  // The plan's arenas (GpuMemoryModel: two arenas, pinned host memory for
  // S(5) and device memory for every other memory space).
  const int64_t device_bytes = prepared_.arenas.device_bytes();
  const int64_t host_bytes = prepared_.arenas.host_bytes();
  const std::vector<Placement>& placements = prepared_.arenas.placements;
  if (device_bytes > 0) {
    HMO_ASSIGN_OR_RETURN(state->device_arena, runtime.AllocateDevice(device_bytes));
  }
  if (host_bytes > 0) {
    HMO_ASSIGN_OR_RETURN(state->host_arena, runtime.AllocatePinnedHost(host_bytes));
  }
  for (size_t i = 0; i < placements.size(); ++i) {
    char* base =
        placements[i].arena == Layout::kHostMemorySpace ? state->host_arena : state->device_arena;
    state->table.push_back(base == nullptr ? nullptr : base + placements[i].offset);
  }
  if (!state->table.empty()) {
    const int64_t table_bytes = static_cast<int64_t>(state->table.size() * sizeof(char*));
    HMO_ASSIGN_OR_RETURN(char* table, runtime.AllocateDevice(table_bytes));
    state->device_table = reinterpret_cast<char**>(table);
    HMO_RETURN_IF_ERROR(runtime.CopyAsync(GpuStream::kCompute, table, state->table.data(), table_bytes));
  }
  // Constants are read-only: uploaded once.
  for (const HloInstruction* constant : plan_.constants) {
    HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice, UniqueSlice(*prepared_.assignment, *constant, {}));
    std::vector<char> staging(static_cast<size_t>(ShapeUtil::ByteSizeOf(constant->shape())));
    HMO_RETURN_IF_ERROR(
        codegen::CopyLiteralToBuffer(constant->literal(), constant->shape(), staging.data()));
    HMO_RETURN_IF_ERROR(runtime.CopyAsync(GpuStream::kCompute, state->Address(slice), staging.data(),
                                          static_cast<int64_t>(staging.size())));
  }
  HMO_RETURN_IF_ERROR(runtime.Synchronize(GpuStream::kCompute));
  return state;
}

absl::StatusOr<Literal> GpuExecutable::Execute(absl::Span<const Literal> arguments, ExecutionProfile* profile) {
  if (plan_.num_replicas > 1) {
    return absl::InvalidArgumentError(fmt::format(
        "GPU executable: compiled for {} replicas; run it with ExecuteReplicated (one argument list per replica)",
        plan_.num_replicas));
  }
  HMO_RETURN_IF_ERROR(CheckArguments(arguments));
  if (device_ == nullptr) {
    HMO_RETURN_IF_ERROR(InitializeDevice());
  } else {
    HMO_RETURN_IF_ERROR(device_->runtime->BindToCallingThread());
  }
  return RunOnDevice(*device_, arguments, profile);
}

absl::StatusOr<Literal> GpuExecutable::RunOnDevice(DeviceState& state, absl::Span<const Literal> arguments,
                                                   ExecutionProfile* profile) const {
  const auto start = std::chrono::steady_clock::now();
  GpuDeviceRuntime& runtime = *state.runtime;
  const BufferAssignment& assignment = *prepared_.assignment;
  const HloComputation* entry = prepared_.module->entry_computation();
  ThunkRunner runner(state, kernels_, /*record_timeline=*/profile != nullptr, max_loop_trips());
  HMO_RETURN_IF_ERROR(runner.Start());
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction& parameter = *entry->parameter_instruction(i);
    const int64_t bytes = ShapeUtil::ByteSizeOf(parameter.shape());
    if (bytes == 0) continue;
    HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice, UniqueSlice(assignment, parameter, {}));
    std::vector<char> staging(static_cast<size_t>(bytes));
    HMO_RETURN_IF_ERROR(
        codegen::CopyLiteralToBuffer(arguments[i], parameter.shape(), staging.data()));
    // On the compute stream, so the kernels see it; a pageable source may go
    // away once the call returns.
    HMO_RETURN_IF_ERROR(runtime.CopyAsync(GpuStream::kCompute, state.Address(slice), staging.data(), bytes));
  }
  HMO_RETURN_IF_ERROR(runner.Run(plan_.entry));
  HMO_RETURN_IF_ERROR(runner.WaitForAllCopies());
  HMO_RETURN_IF_ERROR(runtime.Synchronize(GpuStream::kCopy));
  HMO_RETURN_IF_ERROR(runtime.Synchronize(GpuStream::kCompute));

  const HloInstruction& root = *entry->root_instruction();
  std::function<absl::StatusOr<Literal>(const Shape&, const ShapeIndex&)> read =
      [&](const Shape& shape, const ShapeIndex& index) -> absl::StatusOr<Literal> {
    if (shape.IsTuple()) {
      std::vector<Literal> elements;
      for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size()); ++i) {
        ShapeIndex child = index;
        child.push_back(i);
        HMO_ASSIGN_OR_RETURN(Literal element, read(shape.tuple_shapes()[i], child));
        elements.push_back(std::move(element));
      }
      return Literal::MakeTuple(std::move(elements));
    }
    std::vector<char> staging(static_cast<size_t>(ShapeUtil::ByteSizeOf(shape)));
    if (!staging.empty()) {
      HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice, UniqueSlice(assignment, root, index));
      HMO_RETURN_IF_ERROR(runtime.CopyAsync(GpuStream::kCompute, staging.data(), state.Address(slice),
                                            static_cast<int64_t>(staging.size())));
      HMO_RETURN_IF_ERROR(runtime.Synchronize(GpuStream::kCompute));
    }
    return codegen::LiteralFromBuffer(shape, staging.data());
  };
  HMO_ASSIGN_OR_RETURN(Literal result, read(root.shape(), {}));
  if (profile != nullptr) {
    profile->run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    profile->arena_bytes = 0;
    for (const auto& [color, bytes] : stats_.arena_bytes) profile->arena_bytes += bytes;
    profile->device_peak_bytes = runtime.DeviceBytesInUse();
    HMO_ASSIGN_OR_RETURN(profile->timeline, runner.Timeline());
  }
  return result;
}

namespace {

absl::Status ForReplica(int replica, const absl::Status& status) {
  return absl::Status(status.code(), fmt::format("replica {}: {}", replica, std::string(status.message())));
}

}  // namespace

absl::Status GpuExecutable::InitializeReplicas() {
  const int replicas = plan_.num_replicas;
  GpuReplicaRuntimeFactory factory = replica_runtime_factory_;
  if (factory == nullptr) {
    absl::StatusOr<int> devices = CudaDeviceCount();
    if (!devices.ok()) {
      return absl::UnavailableError(fmt::format("{} replicas need {} CUDA devices; no CUDA device: {}", replicas,
                                                replicas, std::string(devices.status().message())));
    }
    if (*devices < replicas) {
      return absl::UnavailableError(
          fmt::format("{} replicas need {} CUDA devices; {} present", replicas, replicas, *devices));
    }
    factory = [](int replica) { return CreateCudaDeviceRuntime(replica); };
  }
  for (int r = 0; r < replicas; ++r) HMO_RETURN_IF_ERROR(AddReplica(r, factory(r)));
  if (plan_.has_collectives) {
    // Made once; every replica joins it from its own thread (NCCL's
    // communicator creation is collective).
    HMO_ASSIGN_OR_RETURN(clique_, replica_runtimes_.front()->CreateClique(replicas));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Literal>> GpuExecutable::ExecuteReplicated(
    const std::vector<std::vector<Literal>>& arguments_per_replica, std::vector<ExecutionProfile>* profiles) {
  const int replicas = plan_.num_replicas;
  if (static_cast<int>(arguments_per_replica.size()) != replicas) {
    return absl::InvalidArgumentError(fmt::format("GPU executable: {} argument lists given for {} replicas",
                                                  arguments_per_replica.size(), replicas));
  }
  for (int r = 0; r < replicas; ++r) {
    if (absl::Status checked = CheckArguments(arguments_per_replica[r]); !checked.ok()) {
      return ForReplica(r, checked);
    }
  }
  HMO_ASSIGN_OR_RETURN(collectives::MpiCollectives * mpi,
                       collectives::MpiCollectives::FromLaunch());
  if (mpi != nullptr) return ExecuteAcrossProcesses(arguments_per_replica, *mpi, profiles);
  if (profiles != nullptr) profiles->assign(static_cast<size_t>(replicas), ExecutionProfile{});
  if (replicas == 1) {
    HMO_ASSIGN_OR_RETURN(Literal result,
                         Execute(arguments_per_replica[0], profiles != nullptr ? &profiles->front() : nullptr));
    std::vector<Literal> results;
    results.push_back(std::move(result));
    return results;
  }
  if (replicas_.empty()) {
    if (absl::Status initialized = InitializeReplicas(); !initialized.ok()) {
      ReleaseReplicas();
      return initialized;
    }
  }

  std::vector<absl::StatusOr<Literal>> results;
  results.reserve(static_cast<size_t>(replicas));
  for (int r = 0; r < replicas; ++r) results.emplace_back(absl::UnknownError("not run"));
  auto run_replica = [&](int r) -> absl::StatusOr<Literal> {
    DeviceState& state = *replicas_[r];
    HMO_RETURN_IF_ERROR(state.runtime->BindToCallingThread());
    if (plan_.has_collectives && state.collectives == nullptr) {
      HMO_ASSIGN_OR_RETURN(state.collectives, state.runtime->JoinClique(*clique_, r));
    }
    return RunOnDevice(state, arguments_per_replica[r], profiles != nullptr ? &(*profiles)[r] : nullptr);
  };
  {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(replicas));
    for (int r = 0; r < replicas; ++r) {
      threads.emplace_back([&results, &run_replica, r] { results[r] = run_replica(r); });
    }
    for (std::thread& thread : threads) thread.join();
  }

  // The failing replica's own error, not the timeouts of the peers that
  // waited for it at a collective.
  int failed = -1;
  for (int r = 0; r < replicas; ++r) {
    if (results[r].ok()) continue;
    if (failed < 0 || (results[failed].status().code() == absl::StatusCode::kDeadlineExceeded &&
                       results[r].status().code() != absl::StatusCode::kDeadlineExceeded)) {
      failed = r;
    }
  }
  if (failed >= 0) {
    // The replicas may have stopped at different collectives: start over.
    absl::Status status = ForReplica(failed, results[failed].status());
    ReleaseReplicas();
    return status;
  }
  std::vector<Literal> literals;
  literals.reserve(static_cast<size_t>(replicas));
  for (absl::StatusOr<Literal>& result : results) literals.push_back(std::move(*result));
  return literals;
}

absl::Status GpuExecutable::InitializeProcessReplica(const collectives::MpiCollectives& mpi) {
  const int replica = mpi.process();
  absl::StatusOr<std::unique_ptr<GpuDeviceRuntime>> runtime;
  if (replica_runtime_factory_ != nullptr) {
    runtime = replica_runtime_factory_(replica);
  } else {
    absl::StatusOr<int> devices = CudaDeviceCount();
    if (!devices.ok()) {
      return absl::UnavailableError(
          fmt::format("replica {} (process {} of the MPI launch) needs a CUDA device; "
                      "no CUDA device: {}",
                      replica, replica, std::string(devices.status().message())));
    }
    // Processes sharing a machine share its GPUs round-robin.
    runtime = CreateCudaDeviceRuntime(mpi.local_process() % *devices);
  }
  return AddReplica(replica, std::move(runtime));
}

absl::Status GpuExecutable::AddReplica(int replica,
                                       absl::StatusOr<std::unique_ptr<GpuDeviceRuntime>> runtime) {
  if (!runtime.ok()) return ForReplica(replica, runtime.status());
  replica_runtimes_.push_back(std::move(*runtime));
  GpuDeviceRuntime& bound = *replica_runtimes_.back();
  if (absl::Status bind = bound.BindToCallingThread(); !bind.ok()) return ForReplica(replica, bind);
  absl::StatusOr<std::unique_ptr<DeviceState>> state = CreateDeviceState(bound);
  if (!state.ok()) return ForReplica(replica, state.status());
  replicas_.push_back(std::move(*state));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Literal>> GpuExecutable::ExecuteAcrossProcesses(
    const std::vector<std::vector<Literal>>& arguments_per_replica,
    collectives::MpiCollectives& mpi, std::vector<ExecutionProfile>* profiles) {
  const int replicas = plan_.num_replicas;
  HMO_RETURN_IF_ERROR(
      collectives::CheckOneProcessPerDevice(mpi.process_count(), module().name(), replicas));
  const int replica = mpi.process();
  if (replicas_.empty()) {
    // Every process learns that all set up before joining the collective
    // clique: a process that cannot would leave the others waiting there.
    absl::Status ready =
        collectives::AgreeAcrossLaunch(mpi, InitializeProcessReplica(mpi), "setting up its device");
    if (ready.ok() && plan_.has_collectives) {
      absl::StatusOr<std::unique_ptr<CollectiveTransport>> joined =
          replica_runtimes_.front()->JoinLaunch(mpi);
      if (joined.ok()) {
        replicas_.front()->collectives = std::move(*joined);
      } else {
        ready = ForReplica(replica, joined.status());
      }
    }
    if (!ready.ok()) {
      ReleaseReplicas();
      return ready;
    }
  }
  ExecutionProfile profile;
  absl::StatusOr<Literal> result = [&]() -> absl::StatusOr<Literal> {
    DeviceState& state = *replicas_.front();
    HMO_RETURN_IF_ERROR(state.runtime->BindToCallingThread());
    return RunOnDevice(state, arguments_per_replica[static_cast<size_t>(replica)],
                       profiles != nullptr ? &profile : nullptr);
  }();
  if (!result.ok()) result = ForReplica(replica, result.status());
  absl::StatusOr<std::vector<Literal>> gathered = collectives::GatherDeviceResults(
      mpi, result, prepared_.module->entry_computation()->root_instruction()->shape());
  if (!gathered.ok()) {
    // The processes may have stopped at different collectives: start over.
    ReleaseReplicas();
    return gathered.status();
  }
  // Each process measures its own replica only.
  if (profiles != nullptr) profiles->assign(static_cast<size_t>(replicas), profile);
  return gathered;
}

}  // namespace hmo::gpu
