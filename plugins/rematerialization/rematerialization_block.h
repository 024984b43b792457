#ifndef HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_BLOCK_H_
#define HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_BLOCK_H_

// A rematerialization choice and the rewrite that carries it out.
//
// At the memory peak of a scheduled computation (the instruction at
// `peak_position` of its sequence, or the call / while / conditional that
// runs the peak), a value `X` defined before the peak and used again after
// it is live across the peak only to wait for those later uses. Computing X
// again right before its first later use frees its bytes at the peak. X's
// operands then live until the recomputation: an operand that was dead at
// the peak either lives longer (its bytes are charged) or, when it may be
// rematerialized too, is recomputed with X. The recomputed instructions are
// the block: operands first, X last (XLA's rematerialization blocks, grown
// along operands rather than along the schedule).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

struct RematerializationBlock {
  // Names, so that a block found on a module applies to its clones too.
  std::string computation;
  // Operands before their users; the value rematerialized last.
  std::vector<std::string> instructions;
  // Position of the peak in the computation's sequence.
  int64_t peak_position = 0;
  // Bytes the value frees at the peak, less the bytes of operands whose
  // life is extended across it (an estimate: buffer sharing is ignored).
  int64_t estimated_freed_bytes = 0;
  // FLOPs of computing the block again (hmo/analysis/flop_count.h), and the
  // bytes it writes.
  int64_t flops = 0;
  int64_t bytes_written = 0;

  const std::string& value() const { return instructions.back(); }
  // "fusion.3 (with 2 operands)".
  std::string ToString() const;
};

// The blocks that free bytes at `peak_position` of `computation`'s sequence
// in `module`'s schedule, each with at most `max_block_size` instructions
// (for each value, one block per size that differs: recomputing more
// operands frees more and costs more). Only values XLA may rematerialize
// (hmo/analysis/rematerialization_rules.h) are taken: single arrays defined
// in the computation, not its root, without control edges, not aliases of
// another buffer (bitcast, get-tuple-element, tuple), not reading a
// parameter whose buffer is written in place (a donated argument, a loop
// body's state): computed later, they could read the new contents.
std::vector<RematerializationBlock> FindRematerializationBlocks(const HloModule& module,
                                                                const HloComputation& computation,
                                                                int64_t peak_position,
                                                                int64_t max_block_size);

// Recomputes `block` in `module` (resolved by name): clones its
// instructions (a fusion with its own copy of the fused computation) right
// before the value's first use after the peak, and makes every use after
// the peak read the clone. Returns the clone of the value. Errors: a name
// that does not resolve, a module without a schedule, or a value without a
// use after the peak.
absl::StatusOr<HloInstruction*> ApplyRematerializationBlock(HloModule& module,
                                                            const RematerializationBlock& block);

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_BLOCK_H_
