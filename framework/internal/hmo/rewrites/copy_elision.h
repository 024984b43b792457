#ifndef HMO_REWRITES_COPY_ELISION_H_
#define HMO_REWRITES_COPY_ELISION_H_

// Copy elision after copy-insertion (the part of XLA's
// RemoveUnnecessaryCopies hmo has): removes a copy `c = copy(x)` when the
// buffer of x and the buffer of c can be one buffer without two values
// overlapping in time, so a while loop updates its state where its init was
// computed instead of in a copy of it (XLA's in-place loops).
//
// Each HloBuffer of alias analysis (values that must share storage) is a
// group; eliding a copy merges two groups. In the copy's computation P
// (scheduled), every definition and use of a group's values sits at a
// position of P's sequence (values of a nested computation at the position of
// the instruction of P that calls it). Eliding `c = copy(x)` requires:
//   - neither group holds a read-only value (a constant, an entry parameter,
//     a parameter of P), and neither is already the other;
//   - every value of x's group is defined before c;
//   - every use of x's group other than c comes no later than the first
//     definition in c's group other than c itself: strictly before, or the
//     loop at that position that takes c as its init (it reads the init where
//     it then writes its state); a value live out of P counts as used at the
//     end.
// Copies with control edges, that change the layout or whose computation has
// no schedule stay. The schedule is updated.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// Elides what it can among `copies` (kCopy instructions of `module`), in
// order; returns how many it removed.
absl::StatusOr<int64_t> ElideCopies(HloModule& module, const std::vector<HloInstruction*>& copies);

}  // namespace hmo

#endif  // HMO_REWRITES_COPY_ELISION_H_
