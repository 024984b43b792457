#include "compiler/gpu_executable.h"

#include <chrono>
#include <string>
#include <utility>

#include "compiler/layout_copy.h"
#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/gpu/cuda_device_query.h"
#include "hmo/gpu/pinned_host_memory_allocator.h"
#include "nccl/cuda_collective_transport.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>

#include "cuda_status.h"
#endif

namespace hmo::gpu {

int64_t RoundUpToAlignment(int64_t bytes) {
  return (bytes + kGpuBufferAlignment - 1) / kGpuBufferAlignment * kGpuBufferAlignment;
}

#if HMO_GPU_HAVE_CUDA_RUNTIME

#define HMO_CUDA_RETURN_IF_ERROR(expr) HMO_RETURN_IF_ERROR(CudaStatus((expr), #expr))

struct GpuExecutable::DeviceState {
  cudaLibrary_t library = nullptr;
  std::vector<cudaKernel_t> functions;  // parallel to kernels_.kernels
  cudaStream_t compute = nullptr;
  cudaStream_t copy = nullptr;
  cudaEvent_t compute_done = nullptr;
  cudaEvent_t copy_done = nullptr;
  char* device_arena = nullptr;
  OwnedHostMemory host_arena;
  // Allocation index -> address (device, or pinned host), and its device copy.
  std::vector<char*> table;
  char** device_table = nullptr;
  // Single-rank collectives on the compute stream (null without any).
  std::unique_ptr<CudaCollectiveTransport> collectives;

  ~DeviceState() {
    collectives.reset();
    // Teardown cannot report errors; the process may also be exiting.
    if (device_table != nullptr) cudaFree(device_table);
    if (device_arena != nullptr) cudaFree(device_arena);
    if (compute_done != nullptr) cudaEventDestroy(compute_done);
    if (copy_done != nullptr) cudaEventDestroy(copy_done);
    if (compute != nullptr) cudaStreamDestroy(compute);
    if (copy != nullptr) cudaStreamDestroy(copy);
    if (library != nullptr) cudaLibraryUnload(library);
  }

  char* Address(const BufferAssignment::Slice& slice) const { return table.at(slice.index) + slice.offset; }
};

#else

struct GpuExecutable::DeviceState {};

#endif

GpuExecutable::GpuExecutable(PreparedGpuModule prepared, GpuKernelModule kernels, ThunkPlan plan,
                             ExecutableStats stats)
    : prepared_(std::move(prepared)),
      kernels_(std::move(kernels)),
      plan_(std::move(plan)),
      stats_(std::move(stats)) {
  // Two arenas: pinned host memory for S(5), device memory for every other
  // memory space (their allocations follow each other in it).
  int64_t next_device = 0, next_host = 0;
  for (const BufferAllocation& allocation : prepared_.assignment->Allocations()) {
    Placement placement;
    placement.color = allocation.color();
    int64_t& next = allocation.color() == kHostMemorySpace ? next_host : next_device;
    placement.offset = next;
    next += RoundUpToAlignment(allocation.size());
    placements_.push_back(placement);
  }
}

GpuExecutable::~GpuExecutable() = default;

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

#if HMO_GPU_HAVE_CUDA_RUNTIME

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

}  // namespace

absl::Status GpuExecutable::InitializeDevice() {
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) return absl::UnavailableError("no CUDA device: " + std::string(devices.status().message()));
  auto state = std::make_unique<DeviceState>();
  HMO_CUDA_RETURN_IF_ERROR(cudaSetDevice(0));
  HMO_CUDA_RETURN_IF_ERROR(
      cudaLibraryLoadData(&state->library, kernels_.ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  for (const GpuKernel& kernel : kernels_.kernels) {
    cudaKernel_t function = nullptr;
    HMO_RETURN_IF_ERROR(CudaStatus(cudaLibraryGetKernel(&function, state->library, kernel.name.c_str()),
                                   "cudaLibraryGetKernel(" + kernel.name + ")"));
    state->functions.push_back(function);
  }
  HMO_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&state->compute, cudaStreamNonBlocking));
  HMO_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&state->copy, cudaStreamNonBlocking));
  HMO_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&state->compute_done, cudaEventDisableTiming));
  HMO_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&state->copy_done, cudaEventDisableTiming));
  if (plan_.has_collectives) {
    HMO_ASSIGN_OR_RETURN(state->collectives, CudaCollectiveTransport::CreateSingleRank(state->compute));
  }

  // Arenas: S(5) in pinned host memory, everything else on the device.
  int64_t device_bytes = 0, host_bytes = 0;
  const auto& allocations = prepared_.assignment->Allocations();
  for (size_t i = 0; i < allocations.size(); ++i) {
    int64_t& total = placements_[i].color == kHostMemorySpace ? host_bytes : device_bytes;
    total = std::max(total, placements_[i].offset + RoundUpToAlignment(allocations[i].size()));
  }
  if (device_bytes > 0) {
    void* arena = nullptr;
    HMO_CUDA_RETURN_IF_ERROR(cudaMalloc(&arena, static_cast<size_t>(device_bytes)));
    state->device_arena = static_cast<char*>(arena);
  }
  if (host_bytes > 0) {
    HMO_ASSIGN_OR_RETURN(std::unique_ptr<PinnedHostMemoryAllocator> pinned, PinnedHostMemoryAllocator::Create());
    HostAllocationOptions options;
    options.alignment = static_cast<size_t>(kGpuBufferAlignment);
    HMO_ASSIGN_OR_RETURN(state->host_arena, pinned->Allocate(static_cast<size_t>(host_bytes), options));
  }
  for (size_t i = 0; i < allocations.size(); ++i) {
    char* base = placements_[i].color == kHostMemorySpace ? state->host_arena.as<char>() : state->device_arena;
    state->table.push_back(base == nullptr ? nullptr : base + placements_[i].offset);
  }
  if (!state->table.empty()) {
    void* table = nullptr;
    const size_t table_bytes = state->table.size() * sizeof(char*);
    HMO_CUDA_RETURN_IF_ERROR(cudaMalloc(&table, table_bytes));
    state->device_table = static_cast<char**>(table);
    HMO_CUDA_RETURN_IF_ERROR(cudaMemcpy(table, state->table.data(), table_bytes, cudaMemcpyHostToDevice));
  }
  // Constants are read-only: uploaded once.
  for (const HloInstruction* constant : plan_.constants) {
    HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice, UniqueSlice(*prepared_.assignment, *constant, {}));
    std::vector<char> staging(static_cast<size_t>(ShapeUtil::ByteSizeOf(constant->shape())));
    HMO_RETURN_IF_ERROR(cpu::CopyLiteralToBuffer(constant->literal(), constant->shape(), staging.data()));
    HMO_CUDA_RETURN_IF_ERROR(cudaMemcpy(state->Address(slice), staging.data(), staging.size(), cudaMemcpyDefault));
  }
  // A host-to-device cudaMemcpy from pageable memory may return before its
  // DMA lands, and the non-blocking compute stream does not wait for the
  // legacy stream: finish the uploads before any kernel runs.
  HMO_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  device_ = std::move(state);
  return absl::OkStatus();
}

namespace {

absl::Status RunThunks(const ThunkSequence& sequence, const std::vector<cudaKernel_t>& functions,
                       const GpuKernelModule& kernels, GpuExecutable::DeviceState* state);

}  // namespace

#endif  // HMO_GPU_HAVE_CUDA_RUNTIME

absl::StatusOr<Literal> GpuExecutable::Execute(absl::Span<const Literal> arguments, ExecutionProfile* profile) {
#if !HMO_GPU_HAVE_CUDA_RUNTIME
  (void)arguments;
  (void)profile;
  return absl::UnavailableError("no CUDA device: hmo was built without the CUDA runtime");
#else
  if (device_ == nullptr) HMO_RETURN_IF_ERROR(InitializeDevice());
  HMO_RETURN_IF_ERROR(CheckArguments(arguments));
  const auto start = std::chrono::steady_clock::now();
  DeviceState& state = *device_;
  const BufferAssignment& assignment = *prepared_.assignment;
  const HloComputation* entry = prepared_.module->entry_computation();
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction& parameter = *entry->parameter_instruction(i);
    const int64_t bytes = ShapeUtil::ByteSizeOf(parameter.shape());
    if (bytes == 0) continue;
    HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice, UniqueSlice(assignment, parameter, {}));
    std::vector<char> staging(static_cast<size_t>(bytes));
    HMO_RETURN_IF_ERROR(cpu::CopyLiteralToBuffer(arguments[i], parameter.shape(), staging.data()));
    // On the compute stream, so the kernels see it. From pageable memory the
    // call returns once the bytes are staged, so `staging` may go away.
    HMO_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(state.Address(slice), staging.data(), staging.size(),
                                             cudaMemcpyDefault, state.compute));
  }
  HMO_RETURN_IF_ERROR(RunThunks(plan_.entry, state.functions, kernels_, &state));
  HMO_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(state.compute));
  HMO_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(state.copy));

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
      HMO_CUDA_RETURN_IF_ERROR(cudaMemcpy(staging.data(), state.Address(slice), staging.size(), cudaMemcpyDefault));
    }
    return cpu::LiteralFromBuffer(shape, staging.data());
  };
  HMO_ASSIGN_OR_RETURN(Literal result, read(root.shape(), {}));
  if (profile != nullptr) {
    profile->run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    profile->arena_bytes = 0;
    for (const auto& [color, bytes] : stats_.arena_bytes) profile->arena_bytes += bytes;
  }
  return result;
#endif
}

#if HMO_GPU_HAVE_CUDA_RUNTIME
namespace {

// Reads a pred (1 byte) or s32 selector written by the compute stream.
absl::StatusOr<int32_t> ReadSelector(const char* address, bool is_pred, cudaStream_t stream) {
  int32_t value = 0;
  uint8_t pred = 0;
  void* destination = is_pred ? static_cast<void*>(&pred) : static_cast<void*>(&value);
  HMO_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(destination, address, is_pred ? 1 : sizeof(int32_t), cudaMemcpyDefault, stream));
  HMO_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return is_pred ? (pred != 0 ? 1 : 0) : value;
}

absl::Status RunThunks(const ThunkSequence& sequence, const std::vector<cudaKernel_t>& functions,
                       const GpuKernelModule& kernels, GpuExecutable::DeviceState* state) {
  for (const Thunk& thunk : sequence) {
    switch (thunk.kind) {
      case Thunk::Kind::kKernel: {
        const GpuKernel& kernel = kernels.kernels.at(thunk.kernel);
        void* args[] = {&state->device_table};
        const dim3 grid(static_cast<unsigned>(kernel.launch.blocks));
        const dim3 block(static_cast<unsigned>(kernel.launch.threads_per_block));
        HMO_RETURN_IF_ERROR(CudaStatus(cudaLaunchKernel(reinterpret_cast<const void*>(functions.at(thunk.kernel)),
                                                        grid, block, args, 0, state->compute),
                                       "cudaLaunchKernel(" + kernel.name + ")"));
        break;
      }
      case Thunk::Kind::kCopy:
        HMO_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(state->Address(thunk.destination), state->Address(thunk.source),
                                                 static_cast<size_t>(thunk.bytes), cudaMemcpyDefault,
                                                 state->compute));
        break;
      case Thunk::Kind::kMemorySpaceCopy:
        // After everything the compute stream did so far; before anything
        // it does next.
        HMO_CUDA_RETURN_IF_ERROR(cudaEventRecord(state->compute_done, state->compute));
        HMO_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(state->copy, state->compute_done, 0));
        HMO_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(state->Address(thunk.destination), state->Address(thunk.source),
                                                 static_cast<size_t>(thunk.bytes), cudaMemcpyDefault, state->copy));
        HMO_CUDA_RETURN_IF_ERROR(cudaEventRecord(state->copy_done, state->copy));
        HMO_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(state->compute, state->copy_done, 0));
        break;
      case Thunk::Kind::kConditional: {
        HMO_ASSIGN_OR_RETURN(int32_t selector,
                             ReadSelector(state->Address(thunk.predicate), thunk.predicate_is_pred, state->compute));
        const int64_t branches = static_cast<int64_t>(thunk.branches.size());
        // pred: true runs branch 0; an out-of-range index runs the last.
        int64_t branch = thunk.predicate_is_pred ? (selector != 0 ? 0 : 1) : selector;
        if (branch < 0 || branch >= branches) branch = branches - 1;
        HMO_RETURN_IF_ERROR(RunThunks(thunk.branches[branch], functions, kernels, state));
        break;
      }
      case Thunk::Kind::kCollective:
        if (state->collectives == nullptr) return absl::InternalError("GPU executable: no collective transport");
        HMO_RETURN_IF_ERROR(RunCollective(thunk.collective, state->Address(thunk.source),
                                          state->Address(thunk.destination), *state->collectives));
        break;
      case Thunk::Kind::kWhile:
        while (true) {
          HMO_RETURN_IF_ERROR(RunThunks(*thunk.condition, functions, kernels, state));
          HMO_ASSIGN_OR_RETURN(int32_t go, ReadSelector(state->Address(thunk.predicate), true, state->compute));
          if (go == 0) break;
          HMO_RETURN_IF_ERROR(RunThunks(*thunk.body, functions, kernels, state));
        }
        break;
    }
  }
  return absl::OkStatus();
}

}  // namespace
#endif  // HMO_GPU_HAVE_CUDA_RUNTIME

}  // namespace hmo::gpu
