#ifndef HMO_PLUGINS_PLACEMENT_LOOP_OVERWRITE_H_
#define HMO_PLUGINS_PLACEMENT_LOOP_OVERWRITE_H_

// Whether a while loop writes every element of a loop-carried buffer before
// anything reads it: only then may the host offloader give the buffer an
// uninitialized allocation (AllocateBuffer) in place of the broadcast that
// initializes it. A scan's stacked residuals are the case that matters; a
// loop with another trip count (fewer iterations than rows, or none) leaves
// rows that later readers must see as the broadcast's value.

namespace hmo {

class HloInstruction;

// True when `dus` (a dynamic-update-slice in a while body) writes the
// loop-carried element whose initial value is `broadcast`, and over the
// loop's iterations overwrites all of it: the body reads that element only
// through `dus` and carries `dus` on in the same tuple slot; the loop counts
// an induction variable from the constant 0 by 1 while it is less than a
// constant N; the update covers the buffer in every dimension but one, of
// size 1, written at the induction variable (or JAX's negative-index
// normalization of it), and N is at least that dimension's size. Any other
// shape of loop answers false.
bool LoopOverwritesEveryElement(const HloInstruction& dus, const HloInstruction& broadcast);

}  // namespace hmo

#endif  // HMO_PLUGINS_PLACEMENT_LOOP_OVERWRITE_H_
