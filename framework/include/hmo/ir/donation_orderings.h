#ifndef HMO_IR_DONATION_ORDERINGS_H_
#define HMO_IR_DONATION_ORDERINGS_H_

// The orders that donation imposes on an entry computation. An output that
// input_output_alias places in a donated parameter's buffer overwrites the
// parameter, so every other reader of the parameter must run before the
// output's writer. The verifier (rule alias-cycle) refuses a module whose
// orders form a cycle with the data and control edges; the scheduling view
// hands the same orders to every strategy as control edges. One rule serves
// both, so a module the verifier accepts never reaches a strategy cyclic.

#include <cstdint>
#include <vector>

#include "hmo/ir/shape.h"

namespace hmo {

class HloComputation;
class HloInstruction;

// `reader` must run before `writer`, the instruction that writes output leaf
// `output_index` into the parameter buffer `reader` reads.
struct DonationOrdering {
  const HloInstruction* reader = nullptr;
  const HloInstruction* writer = nullptr;
  ShapeIndex output_index;
};

// The orderings of `computation` when it is its module's entry (none
// otherwise). Left out: aliases whose output leaf a tuple, parameter,
// get-tuple-element or bitcast holds (they write nothing), and readers that
// need the writer's result (only a copy of the parameter serves them; the
// backends keep one).
std::vector<DonationOrdering> DonationOrderings(const HloComputation& computation);

// The output indices of the aliases whose orderings close a cycle with the
// data and control edges of `computation` (sorted, without repeats), or none
// when the orderings leave it acyclic.
std::vector<ShapeIndex> DonationCycle(const HloComputation& computation,
                                      const std::vector<DonationOrdering>& orderings);

}  // namespace hmo

#endif  // HMO_IR_DONATION_ORDERINGS_H_
