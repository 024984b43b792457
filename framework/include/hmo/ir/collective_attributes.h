#ifndef HMO_IR_COLLECTIVE_ATTRIBUTES_H_
#define HMO_IR_COLLECTIVE_ATTRIBUTES_H_

// Reading the attributes of collective instructions (all-reduce,
// all-gather, reduce-scatter, collective-permute) from their raw text
// (HloInstruction::GetRawAttribute): replica_groups and
// source_target_pairs. One parser shared by the evaluator and the backends.

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace hmo {

class HloInstruction;

// The replica groups of a replica_groups attribute, in the order written:
//  - the explicit form "{{0,1},{2,3}}" (spaces allowed); "{}" is no group,
//    which XLA reads as "one group of all replicas";
//  - the iota form "[G,S]<=[d0,d1,...]" with an optional transpose
//    "T(p0,p1,...)": iota(d0*d1*...) reshaped to [d0,d1,...], transposed by
//    the permutation, read row-major as G groups of S replicas
//    ("[2,4]<=[8]" -> {{0,1,2,3},{4,5,6,7}}; "[2,2]<=[2,2]T(1,0)" ->
//    {{0,2},{1,3}});
//  - the mesh form "mesh['a'=2,'b'=2]{'b'}" (optionally with
//    "device_ids=(...)" inside the brackets): one group per position of the
//    axes not named in the braces (row-major), its members varying along
//    the named axes in the order named ({'b'} -> {{0,1},{2,3}}, {'a'} ->
//    {{0,2},{1,3}}); axes may be named by index ('0'). Sub-axis forms are
//    UNIMPLEMENTED.
// INVALID_ARGUMENT for text it cannot read (unbalanced braces, nesting
// deeper than two, G*S different from the iota's size, a bad permutation).
// Ids are not checked against a replica count.
absl::StatusOr<std::vector<std::vector<int64_t>>> ParseReplicaGroups(std::string_view replica_groups);

// The largest number of participants of one group of a replica_groups
// attribute ("{{0,1},{2,3}}" -> 2, "[2,4]<=[8]" -> 4, "{}" -> 1).
// INVALID_ARGUMENT for text it cannot read.
absl::StatusOr<int64_t> ReplicaGroupSize(std::string_view replica_groups);

// The (source, target) pairs of a source_target_pairs attribute
// ("{{0,1},{1,0}}"), in the order written. INVALID_ARGUMENT when the
// integers do not pair up. Repeated sources or targets are not checked.
absl::StatusOr<std::vector<std::pair<int, int>>> ParseSourceTargetPairs(std::string_view source_target_pairs);

// How a collective's replica_groups name its participants, as XLA derives
// it from channel_id and use_global_device_ids (the `mode=` XLA drops):
//  - kCrossReplica: no channel_id; groups of replica ids, each partition on
//    its own;
//  - kCrossPartition: a channel_id on an op without use_global_device_ids
//    (all-to-all, collective-permute, collective-broadcast); groups of
//    partition ids within one replica;
//  - kCrossReplicaAndPartition: a channel_id, use_global_device_ids=false;
//    groups of replica ids, every partition of those replicas taking part;
//  - kFlattenedId: use_global_device_ids=true (needs a channel_id); groups
//    of device ids.
enum class CollectiveGroupMode {
  kCrossReplica,
  kCrossPartition,
  kCrossReplicaAndPartition,
  kFlattenedId
};

// The mode of `instruction` (a collective). INVALID_ARGUMENT for
// use_global_device_ids=true without a channel_id.
absl::StatusOr<CollectiveGroupMode> GetCollectiveGroupMode(const HloInstruction& instruction);

// The devices of an SPMD program: replica r of partition p is device
// r * partition_count + p (XLA's flattened id).
struct DeviceGrid {
  int64_t replica_count = 1;
  int64_t partition_count = 1;
  int64_t device_count() const { return replica_count * partition_count; }
  int64_t replica(int64_t device) const { return device / partition_count; }
  int64_t partition(int64_t device) const { return device % partition_count; }
};

// The devices taking part with `device` in `instruction` (all-reduce,
// all-gather, reduce-scatter, all-to-all, collective-broadcast and their
// -start forms), in rank order: `device`'s rank is its position. An absent
// or empty replica_groups is one group of everything the mode spans.
// INVALID_ARGUMENT for unreadable groups, an id past the grid, an id listed
// twice, or `device` in no group.
absl::StatusOr<std::vector<int64_t>> CollectiveParticipants(const HloInstruction& instruction,
                                                            const DeviceGrid& grid, int64_t device);

// collective-permute (and -start): the device `device` receives from and
// the one it sends to (-1: none). Pairs name partitions with a channel_id,
// replicas without. INVALID_ARGUMENT for unreadable pairs, an id past the
// grid, or an id that is a source (or a target) twice.
struct PermutePeers {
  int64_t source = -1;
  int64_t target = -1;
};
absl::StatusOr<PermutePeers> CollectivePermutePeers(const HloInstruction& instruction,
                                                    const DeviceGrid& grid, int64_t device);

}  // namespace hmo

#endif  // HMO_IR_COLLECTIVE_ATTRIBUTES_H_
