#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_COLLECTIVES_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_COLLECTIVES_H_

// Collective instructions (all-reduce, all-gather, reduce-scatter,
// collective-permute) in a GpuExecutable compiled for `num_replicas`
// replicas (GpuCompileOptions::num_replicas; one device per replica, the
// replica id is the rank). They become thunks running RunCollective
// (nccl/collective_thunk.h) on each replica's transport.
//
// Supported cliques:
//   - one replica: groups absent or empty ("{}"), or groups of one ("{{0}}",
//     "[1,1]<=[1]"); collective-permute pairs among replica 0 only ("{{0,0}}"
//     or none). The thunks are copies, or zero-fills for permute targets
//     without a source;
//   - N > 1 replicas: ONE group of all replicas, listed 0..N-1 in order
//     (absent, "{}", "{{0,1,...,N-1}}", "[1,N]<=[N]"): the rank is the
//     position in the group, so another order would be another rank
//     assignment, which the executable does not set up;
//     collective-permute: any pairs among 0..N-1 (each replica a source at
//     most once and a target at most once; targets without a source get
//     zeros). All-gather and reduce-scatter split or concatenate the flat
//     buffers, so their dimension must be the physically outermost one
//     that is not of size 1.
// Several groups or a subset of the replicas are not one such operation:
// UNIMPLEMENTED naming the instruction, as are tuple (variadic) forms,
// element types without a host counterpart and reductions other than add /
// multiply / minimum / maximum. That is not a refusal to run them: on
// several devices every transport runs the instruction's collective plan
// instead (CudaCollectiveTransport: a communicator per replica group,
// nccl/cuda_collective_transport.h); the CollectiveOp is what a clique of
// one (a single device, copies only) runs.

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/collective_attributes.h"  // ParseReplicaGroups, ReplicaGroupSize, ParseSourceTargetPairs
#include "hmo/ir/hlo_instruction.h"
#include "gpu/nccl/collective_thunk.h"

namespace hmo::gpu {

// The CollectiveOp of `instruction` (an array-shaped collective) run by
// each of `num_replicas` replicas (see the top of this file); UNIMPLEMENTED
// naming the instruction for what is not supported, INVALID_ARGUMENT for
// malformed attributes.
absl::StatusOr<CollectiveOp> CollectiveOpFor(const HloInstruction& instruction, int num_replicas);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_COLLECTIVES_H_
