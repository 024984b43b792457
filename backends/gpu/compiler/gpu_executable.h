#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_EXECUTABLE_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_EXECUTABLE_H_

// GpuExecutable: PTX kernels, the thunk plan that runs them, and the memory
// plan (buffer assignment) they run on, executed through a GpuDeviceRuntime
// (gpu_device_runtime.h): CUDA by default, or the host emulation.
//
// The first Execute:
//   - creates the runtime when none was given (CreateCudaDeviceRuntime:
//     UNAVAILABLE "no CUDA device: <reason>" without a device) and loads the
//     kernels;
//   - places every allocation at a 256-byte aligned offset in one arena per
//     memory space: memory space 5 (S(5), host) in pinned host memory
//     (kernels reach it through unified addressing), every other space in
//     one device arena;
//   - uploads the buffer table (allocation index -> address) and the
//     constants.
// Every Execute copies the arguments into the entry parameters' slices
// (converted to the parameters' layouts on the host), runs the plan
// (kernels and copies on the compute stream; MoveToHost / MoveToDevice on the
// copy stream, overlapping the compute until a later thunk touches their
// bytes), and reads the root's slices back into a literal. With a profile it
// also records a timeline of both streams (timing events around every
// operation) and the device memory in use.
//
// Replicas: compiled with GpuCompileOptions::num_replicas = N > 1, the
// module runs as N replicas together through ExecuteReplicated (Execute is
// then INVALID_ARGUMENT). Replica r runs on its own runtime (CUDA: device
// r; host emulation: a fresh HostEmulatedDeviceRuntime sharing the host
// kernels), with its own arenas, buffer table and collective transport, on
// its own host thread; all run the same thunk plan, and its collectives
// meet across the replicas (CUDA: NCCL, one communicator of the N devices;
// host emulation: HostCollectiveTransport over one rendezvous). The first
// ExecuteReplicated creates the runtimes and arenas and joins the clique;
// later calls reuse them, unless a call failed (the next one starts over).
//
// In a process of an MPI launch (`mpirun -n N hmo run ... --execute`,
// collectives::MpiCollectives::FromLaunch), process k runs replica k alone
// (CUDA: on its machine's GPU of its local index; host emulation: a fresh
// emulated device), its collectives meet the other processes' (CUDA: one
// NCCL communicator of the N processes, its id handed out over MPI; host
// emulation: MpiCollectives), and every process gets every replica's result
// (collectives::GatherDeviceResults). A launch of another process count
// than N is INVALID_ARGUMENT.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gpu/codegen/gpu_kernel_module.h"
#include "gpu/compiler/gpu_device_runtime.h"
#include "gpu/compiler/gpu_module_preparation.h"
#include "gpu/compiler/gpu_thunk_plan.h"
#include "hmo/collectives/mpi_collectives.h"
#include "hmo/plugin/executable.h"

namespace hmo::gpu {

// Makes the runtime of replica `replica` (called on the thread of
// ExecuteReplicated, once per replica).
using GpuReplicaRuntimeFactory = std::function<absl::StatusOr<std::unique_ptr<GpuDeviceRuntime>>(int replica)>;

class GpuExecutable : public Executable {
 public:
  // `runtime` null: the CUDA runtime on device 0, created by the first
  // Execute. `replica_runtimes` null: replica r runs on CUDA device r
  // (CreateCudaDeviceRuntime(r)).
  GpuExecutable(PreparedGpuModule prepared, GpuKernelModule kernels, ThunkPlan plan, ExecutableStats stats,
                std::unique_ptr<GpuDeviceRuntime> runtime = nullptr,
                GpuReplicaRuntimeFactory replica_runtimes = nullptr);
  ~GpuExecutable() override;

  // One replica. INVALID_ARGUMENT when compiled for several (use
  // ExecuteReplicated).
  absl::StatusOr<Literal> Execute(absl::Span<const Literal> arguments, ExecutionProfile* profile) override;

  // Runs the num_replicas() replicas concurrently, replica r on
  // arguments_per_replica[r]; returns each replica's result, in replica
  // order. `profiles` (optional) gets one profile per replica. Errors:
  // INVALID_ARGUMENT for a wrong number of argument lists or a wrong
  // argument (naming the replica); UNAVAILABLE on CUDA with fewer devices
  // than replicas (naming both counts) or without libnccl; otherwise the
  // first replica's error, "replica <r>: ..." (a replica's own failure is
  // preferred over the DEADLINE_EXCEEDED of the peers left waiting for it
  // at a collective). With one replica it is Execute.
  absl::StatusOr<std::vector<Literal>> ExecuteReplicated(
      const std::vector<std::vector<Literal>>& arguments_per_replica,
      std::vector<ExecutionProfile>* profiles) override;
  int num_replicas() const { return plan_.num_replicas; }

  const ExecutableStats& stats() const override { return stats_; }

  const HloModule& module() const { return *prepared_.module; }
  const BufferAssignment& assignment() const { return *prepared_.assignment; }
  const GpuKernelModule& kernels() const { return kernels_; }
  const ThunkPlan& plan() const { return plan_; }

  // Where each allocation lives (the plan's ArenaLayout): its offset inside
  // the pinned host arena (arena 5) or the device arena (arena 0, every
  // other memory space).
  using Placement = ArenaLayout::Placement;
  const std::vector<Placement>& placements() const { return prepared_.arenas.placements; }

  // The runtime, arenas and buffer table, created by the first Execute;
  // opaque outside gpu_executable.cc.
  struct DeviceState;

 private:
  absl::Status CheckArguments(absl::Span<const Literal> arguments) const;
  absl::Status InitializeDevice();
  // Kernels, arenas, buffer table and constants on `runtime` (bound to the
  // calling thread); no collective transport yet.
  absl::StatusOr<std::unique_ptr<DeviceState>> CreateDeviceState(GpuDeviceRuntime& runtime) const;
  // One run of the plan on `state` (its runtime bound to the calling
  // thread). Reads only the executable, so replicas run it concurrently.
  absl::StatusOr<Literal> RunOnDevice(DeviceState& state, absl::Span<const Literal> arguments,
                                      ExecutionProfile* profile) const;
  absl::Status InitializeReplicas();
  // Keeps `runtime` as replica `replica`'s: binds it to the calling thread
  // and creates its state (errors name the replica).
  absl::Status AddReplica(int replica, absl::StatusOr<std::unique_ptr<GpuDeviceRuntime>> runtime);
  void ReleaseReplicas();
  // ExecuteReplicated in a process of an MPI launch: this process's replica
  // (mpi.process()) alone, every replica's result gathered
  // (hmo/collectives/launch_results.h).
  absl::StatusOr<std::vector<Literal>> ExecuteAcrossProcesses(
      const std::vector<std::vector<Literal>>& arguments_per_replica,
      collectives::MpiCollectives& mpi, std::vector<ExecutionProfile>* profiles);
  // The runtime and state of this process's replica (CUDA: the machine's
  // GPU of its local index, modulo the visible GPUs).
  absl::Status InitializeProcessReplica(const collectives::MpiCollectives& mpi);

  PreparedGpuModule prepared_;
  GpuKernelModule kernels_;
  ThunkPlan plan_;
  ExecutableStats stats_;
  std::unique_ptr<GpuDeviceRuntime> runtime_;
  std::unique_ptr<DeviceState> device_;
  // ExecuteReplicated: how replica runtimes are made (null: CUDA device r),
  // the clique they joined, and each replica's runtime and state. The
  // states (their transports) go before the runtimes and the clique.
  GpuReplicaRuntimeFactory replica_runtime_factory_;
  std::shared_ptr<CollectiveClique> clique_;
  std::vector<std::unique_ptr<GpuDeviceRuntime>> replica_runtimes_;
  std::vector<std::unique_ptr<DeviceState>> replicas_;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_EXECUTABLE_H_
