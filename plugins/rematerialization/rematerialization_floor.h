#ifndef HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_FLOOR_H_
#define HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_FLOOR_H_

// A lower bound of the device bytes under any rematerialization (and any
// schedule or buffer assignment). Two facts bound it:
//   - the allocations held for the whole run: arguments + outputs - alias;
//   - while an instruction runs, its operands and its result are on the
//     device at once (the result in its own buffer, or in the place of an
//     operand: max(operands, result)), beside the arguments that are not
//     donated (their buffers hold nothing else).
// Only values certainly held apart count: undonated parameters (counted
// whole), constants and aliases (bitcast, get-tuple-element, tuple) are left
// out, so the bound holds for every buffer assignment. A donated argument an
// instruction reads counts: its buffer, the output's, holds it until then.

#include <cstdint>
#include <string>

#include "hmo/analysis/compiled_memory_stats.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

struct RematerializationFloor {
  int64_t bytes = 0;
  // The instruction whose operands and result set the bound; empty when the
  // whole-run allocations do.
  std::string instruction;
};

// The bound for `module`, whose buffer assignment gave `stats`.
RematerializationFloor ComputeRematerializationFloor(const HloModule& module,
                                                     const CompiledMemoryStats& stats);

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_FLOOR_H_
