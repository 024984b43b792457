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

// The replica groups of a replica_groups attribute, in the order written:
//  - the explicit form "{{0,1},{2,3}}" (spaces allowed); "{}" is no group,
//    which XLA reads as "one group of all replicas";
//  - the iota form "[G,S]<=[d0,d1,...]" with an optional transpose
//    "T(p0,p1,...)": iota(d0*d1*...) reshaped to [d0,d1,...], transposed by
//    the permutation, read row-major as G groups of S replicas
//    ("[2,4]<=[8]" -> {{0,1,2,3},{4,5,6,7}}; "[2,2]<=[2,2]T(1,0)" ->
//    {{0,2},{1,3}}).
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

}  // namespace hmo

#endif  // HMO_IR_COLLECTIVE_ATTRIBUTES_H_
