#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_COLLECTIVES_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_COLLECTIVES_H_

// Collective instructions (all-reduce, all-gather, reduce-scatter,
// collective-permute) in a GpuExecutable. The executable drives ONE device,
// so it runs the collectives whose clique is that device alone: replica
// groups absent or empty ("{}"), or groups of one ("{{0}}", "[1,1]<=[1]");
// collective-permute pairs among device 0 only ("{{0,0}}" or none). Those
// become thunks running RunCollective (nccl/collective_thunk.h) on a
// single-rank CUDA transport: copies, or zero-fills for permute targets
// without a source. Larger cliques need one executable per device and NCCL
// communicators, which this executable does not set up: UNIMPLEMENTED
// naming the instruction and the clique size.

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_instruction.h"
#include "nccl/collective_thunk.h"

namespace hmo::gpu {

bool IsCollective(const HloInstruction& instruction);

// The largest number of participants of one replica group in the
// replica_groups attribute text ("{{0,1},{2,3}}" -> 2, "[2,4]<=[8]" -> 4,
// "{}" -> 1). INVALID_ARGUMENT for text it cannot read.
absl::StatusOr<int64_t> ReplicaGroupSize(std::string_view replica_groups);

// (source, target) pairs of a source_target_pairs attribute ("{{0,1},{1,0}}").
absl::StatusOr<std::vector<std::pair<int, int>>> ParseSourceTargetPairs(std::string_view text);

// The single-device CollectiveOp of `instruction` (an array-shaped
// collective); UNIMPLEMENTED when it needs more than one device, a tuple
// (variadic) form, an element type without a host counterpart, or a
// reduction other than add / multiply / minimum / maximum.
absl::StatusOr<CollectiveOp> SingleDeviceCollectiveOp(const HloInstruction& instruction);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_COLLECTIVES_H_
