#ifndef HMO_ANALYSIS_BUFFER_PLAN_CHECKER_H_
#define HMO_ANALYSIS_BUFFER_PLAN_CHECKER_H_

// CheckBufferPlan: an independent check of a buffer assignment against its
// schedule. It does not use live ranges, the heap simulator or buffer
// assignment's interference rules; it runs the plan abstractly, the way an
// executing backend runs it, and tags the bytes of every allocation with the
// value last written there:
//
//  - entry parameters and constant allocations are tagged before the first
//    instruction;
//  - each instruction of a sequence (the schedule's, post order where a
//    computation has none) first reads: every array leaf of every operand
//    must still hold, in the slice the assignment gives that position, the
//    value that flowed there at run time; then writes: each array value it
//    defines tags its slice;
//  - tuple, get-tuple-element, bitcast, while, call and conditional move
//    values without computing them: the value flows on, and where the
//    destination's slice differs from the source's it is a copy (a read of
//    the source, a write of the destination);
//  - while bodies run twice (conditions three times), so a loop-carried
//    value that a later iteration still needs is checked; each branch of a
//    conditional runs from the same state, and bytes the branches leave
//    different hold the conditional's result or nothing readable;
//  - copy-start's source must be intact until its copy-done;
//  - at the end, every array leaf of the entry result must hold its value.
//
// An instruction may write an output over an operand it reads only in the
// exact slice of that operand and where
// HloDataflowAnalysis::CanShareOperandBufferWithUser allows that pair;
// writes to read-only allocations (non-donated parameters, constants) and
// two outputs of one instruction sharing bytes are errors.
//
// Fusion, reduce, sort, ... bodies are not run: a fusion is one step that
// reads its operands and writes its outputs.
//
// Errors (FailedPrecondition): the first violation, naming both values, the
// instruction that read (or the end of the entry), the instruction that
// wrote the bytes, and the allocation byte range.

#include "absl/status/status.h"
#include "hmo/analysis/buffer_assignment.h"

namespace hmo {

absl::Status CheckBufferPlan(const BufferAssignment& assignment);

}  // namespace hmo

#endif  // HMO_ANALYSIS_BUFFER_PLAN_CHECKER_H_
