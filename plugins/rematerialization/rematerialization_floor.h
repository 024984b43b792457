#ifndef HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_FLOOR_H_
#define HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_FLOOR_H_

// A lower bound of the device bytes (arguments + outputs - alias + temp)
// under every schedule, recomputation and host offload of temporaries
// between their uses or of a loop's stacks by slices: the moves of hmo's fit
// and of XLA's rematerialization and host offloader.
// Three facts give it:
//   - arguments + outputs - alias is fixed by the program's signature;
//   - while an instruction runs, the temporaries it reads and writes are in
//     device memory at once (its result may take the place of an operand
//     only where it may be computed over it in place, XLA's
//     CanShareOperandBufferWithUser; an output's buffer it writes holds
//     nothing else then);
//   - a temporary is in the temp arena unless it sits in an output's (or a
//     donated argument's) buffer while that buffer holds nothing else, one
//     temporary per buffer at a time (buffer assignment's rule). A buffer is
//     surely taken while its argument still has a reader to come, or once its
//     output is computed; which instructions come before and after another is
//     what data dependence says, whatever the schedule.
// Values that might not be temporaries under some move are left out: the
// arguments' and constants' buffers, host values, tuples (a loop's state
// could live on the host), a loop's stacks the fit may keep on the host a
// slice at a time (loop_state_offload.h), and copies that keep their layout
// (copy elimination may remove them).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "hmo/analysis/compiled_memory_stats.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

struct RematerializationFloor {
  int64_t bytes = 0;
  // The instruction whose temporaries set the bound; empty when the
  // arguments and outputs alone do.
  std::string instruction;
  // What the bound adds up, for the user.
  std::string reason;
};

// The bound for `module`, whose buffer assignment gave `stats`. It checks at
// most `max_instructions` instructions in full (the bound stays a bound when
// it stops early). Errors: those of the alias analysis.
absl::StatusOr<RematerializationFloor> ComputeRematerializationFloor(
    const HloModule& module, const CompiledMemoryStats& stats, int64_t max_instructions = 64);

// What `model`'s arena layout adds to the allocations of `module`'s entry
// arguments and outputs in device memory: each is padded to the model's
// alignment. Every module a fit can make from `module` pays it, so it adds to
// the floor in the target's terms: the signature fixes those allocations'
// sizes (an allocation never grows, an argument's holds only it, and a
// live-out value only shares an allocation of exactly its size), and the
// arena rounds every allocation up. Errors: those of PlanTargetMemory.
absl::StatusOr<int64_t> ArenaPaddingOfArgumentsAndOutputs(const HloModule& module,
                                                          const TargetMemoryModel& model);

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_REMATERIALIZATION_FLOOR_H_
