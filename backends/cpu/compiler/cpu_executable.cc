#include "cpu/compiler/cpu_executable.h"

#include <sys/mman.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "cpu/codegen/module_emitter.h"
#include "cpu/compiler/cpu_collectives.h"
#include "hmo/collectives/in_process_collectives.h"
#include "hmo/collectives/launch_results.h"
#include "cpu/compiler/cpu_compiler.h"
#include "hmo/codegen/runtime/intra_op_threads.h"
#include "hmo/codegen/runtime/layout_copy.h"
#include "fmt/format.h"
#include "hmo/base/loop_trip_budget.h"
#include "hmo/base/status_macros.h"
#include "hmo/execution/peak_memory.h"

namespace hmo::cpu {
namespace {

// One anonymous, private mapping; untouched pages cost no resident memory.
class Arena {
 public:
  static absl::StatusOr<Arena> Map(int64_t bytes) {
    Arena arena;
    arena.size_ = bytes;
    if (bytes == 0) return arena;
    void* base = mmap(nullptr, static_cast<size_t>(bytes), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
      return absl::ResourceExhaustedError(fmt::format("cannot map an arena of {} bytes", bytes));
    }
    arena.base_ = static_cast<char*>(base);
    return arena;
  }
  Arena() = default;
  Arena(Arena&& other) noexcept
      : base_(std::exchange(other.base_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  Arena& operator=(Arena&& other) noexcept {
    std::swap(base_, other.base_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~Arena() {
    if (base_ != nullptr) munmap(base_, static_cast<size_t>(size_));
  }
  char* base() const { return base_; }

 private:
  char* base_ = nullptr;
  int64_t size_ = 0;
};

// The value at `index` of the root has exactly one slice; returns it.
absl::StatusOr<BufferAssignment::Slice> UniqueSlice(const BufferAssignment& assignment,
                                                    const HloInstruction* instruction,
                                                    const ShapeIndex& index) {
  std::set<BufferAssignment::Slice> slices = assignment.GetAllSlices(instruction, index);
  if (slices.size() != 1) {
    return absl::InternalError(fmt::format("{} at {} has {} buffer slices, expected one",
                                           instruction->name(), ShapeIndexToString(index),
                                           slices.size()));
  }
  return *slices.begin();
}

}  // namespace

class CpuExecutable::Arenas {
 public:
  std::map<int64_t, Arena> by_color;
};

CpuExecutable::~CpuExecutable() = default;

CpuExecutable::CpuExecutable(TargetMemoryPlan plan, std::unique_ptr<codegen::CpuJit> jit,
                             CpuEntryFunction entry, ExecutableStats stats,
                             std::vector<char*> constant_addresses,
                             std::vector<std::string> while_loops, DeviceGrid grid,
                             std::vector<collectives::CollectivePlan> collective_plans)
    : plan_(std::move(plan)),
      jit_(std::move(jit)),
      entry_(entry),
      stats_(std::move(stats)),
      while_loops_(std::move(while_loops)),
      grid_(grid),
      collective_plans_(std::move(collective_plans)) {
  // The plan's arenas, byte for byte: what the pipeline measured is what runs.
  for (size_t i = 0; i < plan_.arenas.placements.size(); ++i) {
    const ArenaLayout::Placement& planned = plan_.arenas.placements[i];
    Placement placement;
    if (i < constant_addresses.size() && constant_addresses[i] != nullptr) {
      placement.fixed_address = constant_addresses[i];
    } else if (planned.arena >= 0) {
      placement.arena = planned.arena;
      placement.offset = planned.offset;
    }
    placements_.push_back(placement);
  }
  stats_.arena_bytes = plan_.arenas.arena_bytes;
}

absl::Status CpuExecutable::CheckArguments(absl::Span<const Literal> arguments) const {
  const HloComputation* entry = module().entry_computation();
  if (static_cast<int64_t>(arguments.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(fmt::format("module '{}' takes {} arguments, got {}",
                                                  module().name(), entry->num_parameters(),
                                                  arguments.size()));
  }
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const Shape& expected = entry->parameter_instruction(i)->shape();
    if (!ShapeUtil::Compatible(expected, arguments[i].shape())) {
      return absl::InvalidArgumentError(
          fmt::format("argument {} has shape {}, parameter {} expects {}", i,
                      arguments[i].shape().ToString(false), i, expected.ToString(false)));
    }
  }
  return absl::OkStatus();
}

void CpuExecutable::ApplyThreadCount() const {
  codegen::SetIntraOpThreadCount(
      threads_ > 0 ? static_cast<int>(threads_)
                   : std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
}

absl::StatusOr<Literal> CpuExecutable::Execute(absl::Span<const Literal> arguments,
                                               ExecutionProfile* profile) {
  if (grid_.device_count() != 1) {
    return absl::InvalidArgumentError(fmt::format(
        "module '{}' was compiled for {} devices ({} replicas x {} partitions): run them together, "
        "one "
        "argument list per device",
        module().name(), grid_.device_count(), grid_.replica_count, grid_.partition_count));
  }
  ApplyThreadCount();
  collectives::InProcessCollectives alone;
  return RunDevice(arguments, 0, alone, profile);
}

absl::StatusOr<std::vector<Literal>> CpuExecutable::ExecuteReplicated(
    const std::vector<std::vector<Literal>>& arguments_per_device,
    std::vector<ExecutionProfile>* profiles) {
  const int64_t devices = grid_.device_count();
  if (static_cast<int64_t>(arguments_per_device.size()) != devices) {
    return absl::InvalidArgumentError(
        fmt::format("module '{}' was compiled for {} devices ({} replicas x {} partitions); got {} "
                    "argument lists",
                    module().name(), devices, grid_.replica_count, grid_.partition_count,
                    arguments_per_device.size()));
  }
  for (const std::vector<Literal>& arguments : arguments_per_device)
    HMO_RETURN_IF_ERROR(CheckArguments(arguments));
  HMO_ASSIGN_OR_RETURN(collectives::MpiCollectives * mpi,
                       collectives::MpiCollectives::FromLaunch());
  if (mpi != nullptr) return ExecuteAcrossProcesses(arguments_per_device, *mpi, profiles);
  ApplyThreadCount();
  collectives::InProcessCollectives collectives;
  std::vector<absl::StatusOr<Literal>> results(static_cast<size_t>(devices),
                                               absl::UnknownError("not run"));
  std::vector<ExecutionProfile> device_profiles(static_cast<size_t>(devices));
  {
    // Every device's arguments are in before any device starts: a caller of
    // XLA times a step on resident buffers, and a device that started early
    // would wait at its first collective for the others' copies.
    std::barrier arguments_in(static_cast<std::ptrdiff_t>(devices));
    std::vector<std::thread> threads;
    for (int64_t d = 0; d < devices; ++d) {
      threads.emplace_back([&, d] {
        results[static_cast<size_t>(d)] =
            RunDevice(arguments_per_device[static_cast<size_t>(d)], d, collectives,
                      &device_profiles[static_cast<size_t>(d)],
                      [&arguments_in] { arguments_in.arrive_and_wait(); });
        // Its peers stop waiting for it.
        if (!results[static_cast<size_t>(d)].ok())
          collectives.Abort(d, results[static_cast<size_t>(d)].status());
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  // A device that failed makes its peers miss it at their next collective
  // (ABORTED, or DEADLINE_EXCEEDED): its own failure is the cause.
  const auto consequence = [](const absl::Status& status) {
    return absl::IsDeadlineExceeded(status) || absl::IsAborted(status);
  };
  const absl::Status* failure = nullptr;
  for (const absl::StatusOr<Literal>& result : results) {
    if (result.ok()) continue;
    if (failure == nullptr || (consequence(*failure) && !consequence(result.status())))
      failure = &result.status();
  }
  if (failure != nullptr) return *failure;
  std::vector<Literal> out;
  for (absl::StatusOr<Literal>& result : results) out.push_back(*std::move(result));
  if (profiles != nullptr) *profiles = std::move(device_profiles);
  return out;
}

absl::StatusOr<std::vector<Literal>> CpuExecutable::ExecuteAcrossProcesses(
    const std::vector<std::vector<Literal>>& arguments_per_device, collectives::MpiCollectives& mpi,
    std::vector<ExecutionProfile>* profiles) {
  const int64_t devices = grid_.device_count();
  HMO_RETURN_IF_ERROR(
      collectives::CheckOneProcessPerDevice(mpi.process_count(), module().name(), devices));
  ApplyThreadCount();
  const int64_t device = mpi.process();
  ExecutionProfile profile;
  absl::StatusOr<Literal> result =
      RunDevice(arguments_per_device[static_cast<size_t>(device)], device, mpi, &profile);
  HMO_ASSIGN_OR_RETURN(std::vector<Literal> out,
                       collectives::GatherDeviceResults(
                           mpi, result, module().entry_computation()->root_instruction()->shape()));
  if (profiles != nullptr) profiles->assign(static_cast<size_t>(devices), profile);
  return out;
}

absl::StatusOr<Literal> CpuExecutable::RunDevice(absl::Span<const Literal> arguments,
                                                 int64_t device,
                                                 collectives::DeviceCollectives& collectives,
                                                 ExecutionProfile* profile,
                                                 const std::function<void()>& arguments_in) {
  // Called exactly once, whichever way this returns before the run starts.
  bool arrived = arguments_in == nullptr;
  auto arrive = [&] {
    if (!arrived) arguments_in();
    arrived = true;
  };
  absl::Cleanup arrive_on_failure = arrive;
  HMO_RETURN_IF_ERROR(CheckArguments(arguments));
  // The meter covers the arenas, the argument copies, the run and the
  // result copies: everything the execution made resident.
  PeakResidentSetMeter meter;
  if (profile != nullptr) meter.Start();

  // The arenas a finished run left, else fresh ones; left for the next run
  // on every return.
  std::unique_ptr<Arenas> taken;
  {
    std::lock_guard<std::mutex> lock(idle_arenas_mutex_);
    if (!idle_arenas_.empty()) {
      taken = std::move(idle_arenas_.back());
      idle_arenas_.pop_back();
    }
  }
  int64_t arena_bytes = 0;
  if (taken == nullptr) {
    taken = std::make_unique<Arenas>();
    for (const auto& [color, bytes] : stats_.arena_bytes) {
      HMO_ASSIGN_OR_RETURN(taken->by_color[color], Arena::Map(bytes));
    }
  }
  for (const auto& [color, bytes] : stats_.arena_bytes) arena_bytes += bytes;
  absl::Cleanup leave_arenas = [&] {
    std::lock_guard<std::mutex> lock(idle_arenas_mutex_);
    if (static_cast<int64_t>(idle_arenas_.size()) < grid_.device_count())
      idle_arenas_.push_back(std::move(taken));
  };
  std::map<int64_t, Arena>& arenas = taken->by_color;
  // One slot per allocation, then the loop trip budget's and the device
  // context's.
  std::vector<char*> buffer_table(placements_.size() + 2, nullptr);
  LoopTripBudget budget{.max_trips = max_loop_trips()};
  CpuDeviceContext device_context;
  device_context.device = device;
  device_context.plans = &collective_plans_;
  device_context.collectives = &collectives;
  device_context.exceeded_loop = &budget.exceeded_loop;
  buffer_table[placements_.size()] = reinterpret_cast<char*>(&budget);
  buffer_table[placements_.size() + 1] = reinterpret_cast<char*>(&device_context);
  for (size_t i = 0; i < placements_.size(); ++i) {
    if (placements_[i].fixed_address != nullptr) {
      buffer_table[i] = placements_[i].fixed_address;
    } else if (placements_[i].offset >= 0) {
      buffer_table[i] = arenas[placements_[i].arena].base() + placements_[i].offset;
    }
  }
  auto address = [&](const BufferAssignment::Slice& slice) {
    return buffer_table[slice.index] + slice.offset;
  };

  // Arguments: every array leaf of every entry parameter.
  const HloComputation* entry = module().entry_computation();
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    const HloInstruction* parameter = entry->parameter_instruction(p);
    absl::Status status = ShapeUtil::ForEachSubshapeWithStatus(
        parameter->shape(), [&](const Shape& subshape, const ShapeIndex& index) -> absl::Status {
          if (!subshape.IsArray()) return absl::OkStatus();
          const Literal* leaf = &arguments[p];
          for (int64_t i : index) leaf = &leaf->tuple_elements()[i];
          HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice,
                               UniqueSlice(*plan_.assignment, parameter, index));
          return codegen::CopyLiteralToBuffer(*leaf, subshape, address(slice));
        });
    HMO_RETURN_IF_ERROR(status);
  }

  arrive();
  const auto start = std::chrono::steady_clock::now();
  entry_(buffer_table.data());
  const auto end = std::chrono::steady_clock::now();
  if (!device_context.status.ok() && budget.exceeded_loop < 0) {
    const absl::Status& status = device_context.status;
    return absl::Status(status.code(),
                        grid_.device_count() == 1
                            ? std::string(status.message())
                            : fmt::format("device {}: {}", device, std::string(status.message())));
  }
  if (budget.exceeded_loop >= 0) {
    // The loops left early: the buffers hold no result.
    const std::string loop = static_cast<size_t>(budget.exceeded_loop) < while_loops_.size()
                                 ? while_loops_[budget.exceeded_loop]
                                 : fmt::format("#{}", budget.exceeded_loop);
    return LoopTripBudgetExceeded("CPU executable", loop, budget.max_trips);
  }

  // Results: the root's leaves, rebuilt into a (nested) tuple literal.
  const HloInstruction* root = entry->root_instruction();
  std::function<absl::StatusOr<Literal>(const Shape&, ShapeIndex)> read =
      [&](const Shape& shape, ShapeIndex index) -> absl::StatusOr<Literal> {
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
    if (!shape.IsArray()) return Literal(shape);
    HMO_ASSIGN_OR_RETURN(BufferAssignment::Slice slice,
                         UniqueSlice(*plan_.assignment, root, index));
    return codegen::LiteralFromBuffer(shape, address(slice));
  };
  HMO_ASSIGN_OR_RETURN(Literal result, read(root->shape(), {}));

  if (profile != nullptr) {
    profile->run_seconds = std::chrono::duration<double>(end - start).count();
    profile->arena_bytes = arena_bytes;
    profile->peak_rss_growth_bytes = meter.Stop();
  }
  return result;
}

}  // namespace hmo::cpu
