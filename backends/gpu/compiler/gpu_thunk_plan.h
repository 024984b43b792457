#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_THUNK_PLAN_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_THUNK_PLAN_H_

// The host-side program of a GPU executable (XLA's thunk sequence): for each
// computation the executable runs, in schedule order,
//   - kKernel: launch one kernel of the GpuKernelModule (or, for a dot that
//     is a plain GEMM, call the runtime's BLAS);
//   - kCopy: make one array value's slice hold another's bytes (a kernel's
//     prologue copies (GpuKernel::prologue_copies), tuple,
//     get-tuple-element, bitcast, the while state, branch parameters and
//     results, ... when their slices differ), device-to-device on the
//     compute stream;
//   - kMemorySpaceCopy: MoveToHost / MoveToDevice (custom-calls, or a copy
//     whose operand and result live in different memory spaces): the same
//     bytes copied on the separate copy stream: after the compute stream's
//     earlier work (an event), and before the first later thunk that touches
//     its source or destination (an event the compute stream waits for then,
//     see Thunk::reads / writes), so the copy overlaps the compute in between;
//   - kConditional: read the branch index (pred: true -> branch 0) back to
//     the host and run that branch's sequence (an index out of range runs
//     the last branch);
//   - kWhile: run the condition sequence, read its pred back, run the body
//     sequence while it is true;
//   - kCollective: a collective among the plan's devices (one per replica of
//     each partition; a clique of one for one device), on the compute
//     stream: its shared plan (hmo/collectives/collective_plan.h: every
//     group form, all-to-all, broadcast, variadic and -start forms, the id
//     ops), run by transports that run plans (the emulation, and CUDA
//     devices with NCCL: a communicator per replica group), and the
//     operation of compiler/gpu_collectives.h where one expresses it, run
//     by a single CUDA device as copies; the -done forms are copies.
// Constants are not thunks: their slices are filled once, when the
// executable first runs.
//
// BuildThunkPlan needs no GPU: it is where unsupported instructions are
// rejected (UnimplementedError naming the instruction).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <optional>

#include "absl/status/statusor.h"
#include "gpu/blas/gemm_descriptor.h"
#include "gpu/codegen/gpu_kernel_module.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_module.h"
#include "gpu/nccl/collective_thunk.h"
#include "hmo/collectives/collective_plan.h"

namespace hmo::gpu {

struct Thunk;
using ThunkSequence = std::vector<Thunk>;

struct Thunk {
  enum class Kind { kKernel, kCopy, kMemorySpaceCopy, kConditional, kWhile, kCollective };
  Kind kind = Kind::kKernel;
  // The instruction this thunk implements (for messages and profiles).
  const HloInstruction* instruction = nullptr;

  // kKernel: index into GpuKernelModule::kernels.
  int64_t kernel = -1;
  // kKernel of a dot whose operands and result are dense row-major f32 (or
  // f64) matrices (codegen::GemmPlanFor): the GEMM computing it and the slices
  // of lhs, rhs and result. The executable calls the runtime's GEMM
  // (cuBLAS) instead of launching the kernel when it has one and the dot
  // has at least kMinGemmFlops multiply-adds.
  std::optional<GemmDescriptor> gemm;
  BufferAssignment::Slice gemm_lhs, gemm_rhs, gemm_out;

  // kCopy / kMemorySpaceCopy; kCollective: the operand's (source) and the
  // result's (destination) slices.
  BufferAssignment::Slice source;
  BufferAssignment::Slice destination;
  int64_t bytes = 0;

  // kConditional: the selector's slice; whether it is a pred (else s32);
  // one sequence per branch (parameter copies, the branch, result copies).
  // kWhile: `predicate` is the condition root's slice, `condition` and
  // `body` are the sequences (each with its parameter/result copies).
  BufferAssignment::Slice predicate;
  bool predicate_is_pred = true;
  std::vector<ThunkSequence> branches;
  std::shared_ptr<ThunkSequence> condition;
  std::shared_ptr<ThunkSequence> body;

  // kCollective: the plan, its send (operand) and receive (result leaf)
  // slices; the NCCL operation, or why there is none.
  std::shared_ptr<const collectives::CollectivePlan> plan;
  std::vector<BufferAssignment::Slice> sends;
  std::vector<BufferAssignment::Slice> receives;
  std::optional<CollectiveOp> collective;
  std::string no_nccl_operation;

  // kKernel / kCopy / kCollective: the slices the thunk reads and those it
  // writes on the compute stream. The executable makes the compute stream
  // wait for a pending memory-space copy only before the first thunk that
  // reads the copy's destination or writes its source or destination (a
  // thunk that only reads the source, e.g. the next layer of an offloaded
  // activation, runs alongside), which is what lets copies overlap compute.
  std::vector<BufferAssignment::Slice> reads;
  std::vector<BufferAssignment::Slice> writes;
};

// Smaller dots run as kernels: a library call's fixed cost outweighs them.
inline constexpr int64_t kMinGemmFlops = 32 * 32 * 32;

struct ThunkPlan {
  ThunkSequence entry;
  // Every constant with a slice (in any computation), to upload once.
  std::vector<const HloInstruction*> constants;
  // Whether any kCollective thunk exists (the executable then creates each
  // replica's collective transport).
  bool has_collectives = false;
  // Devices every collective runs among: num_replicas x the module's
  // partitions (GpuCompileOptions::num_replicas).
  int num_replicas = 1;
};

// `num_replicas`: how many devices run the plan together, a multiple of the
// module's partitions (the cliques its collectives may use).
absl::StatusOr<ThunkPlan> BuildThunkPlan(const HloModule& module, const BufferAssignment& assignment,
                                         const GpuKernelModule& kernels, int num_replicas = 1);

// One line per thunk, indented by nesting: "kernel f", "copy 8 bytes a -> b",
// "conditional c (2 branches)", ... (tests and --dump output).
std::string DescribeThunks(const ThunkSequence& sequence, int indent = 0);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_THUNK_PLAN_H_
