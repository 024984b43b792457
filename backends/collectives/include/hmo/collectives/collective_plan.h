#ifndef HMO_COLLECTIVES_COLLECTIVE_PLAN_H_
#define HMO_COLLECTIVES_COLLECTIVE_PLAN_H_

// What one collective instruction does on each device of an SPMD program,
// in bytes, planned once when a backend compiles the module and run by a
// transport (in_process_collectives.h) every time a device reaches it.
//
// A plan reads `send` buffers (the instruction's operands, in order) and
// writes `receive` buffers (CollectiveReceiveIndices: the result leaves),
// dense in their layouts:
//  - all-reduce (also variadic, and -start): receive[i] = the fold of every
//    participant's send[i] in rank order, rounded to the element type at
//    each step, as XLA:CPU folds it;
//  - all-gather (-start): send[i] is [outer][chunk], receive[i]
//    [outer][ranks][chunk] with rank k's chunk at k (the gathered dimension
//    split physically: `outer` counts the positions of the dimensions laid
//    out more major than it, `chunk` the bytes of the rest);
//  - reduce-scatter: send[i] is [outer][ranks][chunk], receive[i] the
//    reduced [outer][chunk] at this device's rank;
//  - all-to-all, array form: send and receive [outer][ranks][chunk];
//    receive[o][k] = rank k's send[o][my rank]; tuple form (no dimension):
//    receive[k] = rank k's send[my rank];
//  - collective-permute (-start): receive = the source device's send, zeros
//    without a source;
//  - collective-broadcast: receive = rank 0's send;
//  - replica-id / partition-id: receive = the device's id as u32.
// Participants come from CollectiveParticipants / CollectivePermutePeers
// (hmo/ir/collective_attributes.h), per device.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/collective_attributes.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/primitive_type.h"
#include "hmo/ir/shape.h"

namespace hmo::collectives {

enum class CollectiveKind {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kCollectivePermute,
  kCollectiveBroadcast,
  kReplicaId,
  kPartitionId,
};

// The element operation of a reduction: the to_apply computation's root,
// which must be one binary opcode of its two parameters.
enum class ReductionKind { kSum, kProduct, kMin, kMax, kAnd, kOr };

struct CollectivePlan {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  // "all-reduce %name", for errors.
  std::string description;
  PrimitiveType element_type = PrimitiveType::F32;
  ReductionKind reduction = ReductionKind::kSum;
  // Bytes of each send and receive buffer.
  std::vector<int64_t> send_bytes;
  std::vector<int64_t> receive_bytes;
  // all-gather, reduce-scatter, array all-to-all: the split of buffer pair i.
  struct Split {
    int64_t outer = 1;
    int64_t chunk_bytes = 0;
  };
  std::vector<Split> splits;
  // Per device: the participants in rank order (empty for permute and the
  // id ops), and the permute peers.
  std::vector<std::vector<int64_t>> participants;
  std::vector<PermutePeers> peers;
  DeviceGrid grid;
};

// Whether `opcode` is one a plan covers (the synchronous collectives, their
// -start forms, replica-id and partition-id).
bool IsPlannedCollective(HloOpcode opcode);

// The plan of `instruction` on every device of `grid`. UNIMPLEMENTED naming
// the instruction for what no plan covers (reductions that are not one
// binary opcode, layouts that differ between operand and result, element
// types without bytes); INVALID_ARGUMENT for groups or pairs that do not fit
// the grid.
absl::StatusOr<CollectivePlan> PlanCollective(const HloInstruction& instruction,
                                              const DeviceGrid& grid);

// The leaves of `instruction`'s result a plan writes, in receive order: {}
// for an array result, {i} for a tuple one, {1} / {1, i} for all-gather-start
// and collective-permute-start (whose {0} is the operand).
std::vector<ShapeIndex> CollectiveReceiveIndices(const HloInstruction& instruction);

}  // namespace hmo::collectives

#endif  // HMO_COLLECTIVES_COLLECTIVE_PLAN_H_
