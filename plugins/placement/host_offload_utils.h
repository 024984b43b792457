#ifndef HMO_PLUGINS_PLACEMENT_HOST_OFFLOAD_UTILS_H_
#define HMO_PLUGINS_PLACEMENT_HOST_OFFLOAD_UTILS_H_

// Walking the positions of one buffer through the HLO graph, for the host
// offloader: which (instruction, shape index) positions the buffer at a
// position flows to next (successors) or came from (predecessors), across
// tuples, get-tuple-element, calls, while loops, conditionals and async
// computations. The rules are XLA's host_offload_utils.

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/shape.h"

namespace hmo::host_offload_utils {

// One position: the sub-buffer at `shape_index` of `instruction`'s output.
struct InstructionAndShapeIndex {
  explicit InstructionAndShapeIndex(HloInstruction* instruction, ShapeIndex shape_index = {})
      : instruction(instruction), shape_index(std::move(shape_index)) {}

  HloInstruction* instruction;
  ShapeIndex shape_index;

  // "{Instr: name, ShapeIndex: {1,0}}".
  std::string ToString() const;

  bool operator==(const InstructionAndShapeIndex& other) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const InstructionAndShapeIndex& p) {
    return H::combine(std::move(h), p.instruction, p.shape_index);
  }
};

// Returns the positions the data at `position` flows to:
// - the callers of its computation when it is the root (a while only for its
//   body, a call, a conditional for its branches; at the same index);
// - for each user: a tuple at {operand number} + index; a get-tuple-element
//   selecting index.front() at the rest of the index; the matching parameter
//   of a called computation (call, async-start: the parameter with the
//   operand's number; while: the body's and the condition's parameter;
//   conditional: the branch's parameter); a custom-call only where its output
//   reuses the operand's buffer (MoveToHost, MoveToDevice, or an
//   output_to_operand_aliasing entry); any other user at the same index.
// Errors: a get-tuple-element reached with an empty index.
absl::StatusOr<std::vector<InstructionAndShapeIndex>> GetSuccessors(
    const InstructionAndShapeIndex& position);

// Returns the positions the data at `position` came from: a get-tuple-element
// from its operand at {tuple_index} + index; a tuple from the operand
// index.front(); a call from its callee's root; a while from its body's root;
// a parameter from each caller's matching operand; dynamic-slice,
// dynamic-update-slice and pad from operand 0; any other single-operand
// instruction from its operand. Errors: a tuple reached with an empty index,
// or an instruction with several operands not listed here.
absl::StatusOr<std::vector<InstructionAndShapeIndex>> GetPredecessors(
    const InstructionAndShapeIndex& position);

// Whether `instruction` may hold host data during pure memory offload (it
// moves or forwards the buffer without computing on it): get-tuple-element,
// bitcast, tuple, call, while, conditional, parameter, opt-barrier,
// async-start, async-done and custom-call.
bool IsValidDuringPureMemoryOffload(const HloInstruction* instruction);

// Whether the reshape from `input` to `output` only reinterprets the bytes
// (XLA's ShapeUtil::ReshapeIsBitcast for untiled layouts): both shapes have
// the same element type and, ignoring dimensions of size 1, either both
// layouts are major-to-minor, or the dimension sizes match one to one in
// physical order. Shapes without layouts count as major-to-minor.
bool ReshapeIsBitcast(const Shape& input, const Shape& output);

}  // namespace hmo::host_offload_utils

#endif  // HMO_PLUGINS_PLACEMENT_HOST_OFFLOAD_UTILS_H_
