#ifndef HMO_PLUGINS_REMATERIALIZATION_LOOP_STATE_OFFLOAD_H_
#define HMO_PLUGINS_REMATERIALIZATION_LOOP_STATE_OFFLOAD_H_

// Keeping a loop's stacked state in host memory (S(5)), one slice per
// iteration crossing the host link: the scan residuals a forward loop writes
// a slice at a time (a dynamic-update-slice of the state, fused or not) and
// a backward loop reads a slice at a time (dynamic-slices of the state,
// fused into what reads them). This is what XLA's host offloader does for
// residuals that jax's offload policies annotate; here the search chooses
// them. In the writing loop, the slice is computed on the device, copied to
// the host and written into the host stack there; in the reading loop, each
// slice is read from the host stack and copied to the device for the fusion
// that reads it (the fused dynamic-slice moves out of the fusion, its start
// indices recomputed outside from the same operands).
//
// A stack is offloaded in the loop that writes it, the loop that reads it,
// or both when the one's result only feeds the other: then it never lives on
// the device. Written alone, its result is copied back to the device before
// its first use; read alone, its initial value is copied to the host.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

struct LoopStateOffload {
  // One stack: the element of the writing loop's state (`writer`, empty
  // when only read) and of the reading loop's (`reader`, empty when only
  // written).
  struct Stack {
    std::string writer;
    int64_t writer_index = -1;
    std::string reader;
    int64_t reader_index = -1;
    int64_t bytes = 0;
  };
  std::string computation;  // where the loops are
  std::vector<Stack> stacks;

  int64_t bytes() const;
  // "while.4{12} (written by while.49{12})", or "34 stacks of while.4".
  std::string ToString() const;
};

// The stacks of the loops of `computation` that can live in host memory:
// device arrays (not arguments) of a loop's state that its body either only
// reads through dynamic-slices (the element passed on unchanged) or only
// writes a slice of per iteration (the root's element is a dynamic-update-
// slice of the element, alone in its fusion), and that its condition does
// not read. One candidate per stack, and one with every stack of each loop.
std::vector<LoopStateOffload> FindLoopStateOffloads(const HloModule& module,
                                                    const HloComputation& computation);

// Whether element `index` of while `loop`'s state is a stack the offload
// above can move: read only through dynamic-slices, or written a slice per
// iteration (what the proven floor leaves out).
bool IsSlicedLoopState(const HloInstruction& loop, int64_t index);

// Carries `offload` out in `module` (resolved by name) and keeps the module
// scheduled. Errors: names that do not resolve, a pattern no longer there.
absl::Status ApplyLoopStateOffload(HloModule& module, const LoopStateOffload& offload);

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_LOOP_STATE_OFFLOAD_H_
