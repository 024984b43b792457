#ifndef HMO_EVAL_OPCODE_HANDLERS_H_
#define HMO_EVAL_OPCODE_HANDLERS_H_

// The evaluator's per-opcode handlers, grouped by family (one source file per
// family). Each takes the instruction and its already evaluated operands (in
// operand order) and returns the instruction's value as a new Literal.
// Handlers that apply a called computation (reduce, map, scatter, sort, ...)
// get a ComputationRunner that evaluates it.

#include <functional>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/literal.h"

namespace hmo::eval_internal {

using Operands = absl::Span<const Literal* const>;

// Evaluates a computation on arguments (one per parameter).
using ComputationRunner =
    std::function<absl::StatusOr<Literal>(const HloComputation&, absl::Span<const Literal>)>;

// elementwise_handlers.cc: unary and binary arithmetic/logic, compare, select,
// clamp, convert, bitcast-convert, iota.
absl::StatusOr<Literal> HandleElementwiseUnary(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleElementwiseBinary(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleCompare(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleSelect(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleClamp(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleConvert(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleBitcastConvert(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleIota(const HloInstruction& instr);
// Whether HandleElementwiseUnary / HandleElementwiseBinary handle `opcode`.
bool IsElementwiseUnaryOpcode(HloOpcode opcode);
bool IsElementwiseBinaryOpcode(HloOpcode opcode);

// data_movement_handlers.cc: values moved, not computed.
absl::StatusOr<Literal> HandleBroadcast(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleReshape(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleBitcast(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleTranspose(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleReverse(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleSlice(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleDynamicSlice(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleDynamicUpdateSlice(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleConcatenate(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandlePad(const HloInstruction& instr, Operands operands);

// reduction_handlers.cc: reduce and reduce-window (variadic).
absl::StatusOr<Literal> HandleReduce(const HloInstruction& instr, Operands operands,
                                     const ComputationRunner& run);
absl::StatusOr<Literal> HandleReduceWindow(const HloInstruction& instr, Operands operands,
                                           const ComputationRunner& run);
// map_handler.cc.
absl::StatusOr<Literal> HandleMap(const HloInstruction& instr, Operands operands,
                                  const ComputationRunner& run);

// dot_handler.cc / convolution_handler.cc.
absl::StatusOr<Literal> HandleDot(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleConvolution(const HloInstruction& instr, Operands operands);

// topk_handler.cc: topk, and the TopK custom call (its comparator given).
absl::StatusOr<Literal> HandleTopK(const HloInstruction& instr, Operands operands,
                                   const HloComputation* comparator, const ComputationRunner& run);
// select_and_scatter_handler.cc.
absl::StatusOr<Literal> HandleSelectAndScatter(const HloInstruction& instr, Operands operands,
                                               const ComputationRunner& run);

// gather_scatter_handlers.cc.
absl::StatusOr<Literal> HandleGather(const HloInstruction& instr, Operands operands);
absl::StatusOr<Literal> HandleScatter(const HloInstruction& instr, Operands operands,
                                      const ComputationRunner& run);

// collective_handlers.cc: replica-id, partition-id and the collectives
// (all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute,
// collective-broadcast, the async start/done pairs) of the device
// `context` describes (collective_exchange.h); the semantics are in
// hmo/eval/hlo_evaluator.h.
struct DeviceContext;
bool IsDeviceOpcode(HloOpcode opcode);
absl::StatusOr<Literal> HandleDeviceOpcode(const HloInstruction& instr, Operands operands,
                                           DeviceContext& context, const ComputationRunner& run);

// sort_handler.cc.
absl::StatusOr<Literal> HandleSort(const HloInstruction& instr, Operands operands,
                                   const ComputationRunner& run);

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_OPCODE_HANDLERS_H_
