#ifndef HMO_IR_HLO_OPCODE_CLASS_H_
#define HMO_IR_HLO_OPCODE_CLASS_H_

// What kind of computation an opcode is: the one classification that the
// verifier's shape rules, the evaluator's dispatch and the opcode predicates of
// hlo_opcode.h (IsElementwiseOpcode, IsFloatingUnaryOpcode, IsCollectiveOpcode,
// IsAsyncStart/DoneOpcode) all read. It lives in one table, hlo_opcode.cc.
//
// Which members of a class a backend implements is that backend's business
// (its dispatcher says "unsupported"); which class an opcode belongs to is a
// fact about HLO and is decided only here.

#include <cstdint>

#include "hmo/ir/hlo_opcode.h"

namespace hmo {

enum class HloOpcodeClass : uint8_t {
  kOther,
  // One array operand; output element i depends on input element i only, and
  // the result type follows ShapeInference::InferUnaryOpShape (exp, abs, not,
  // is-finite, real, imag, reduce-precision, ...).
  kElementwiseUnary,
  // Two array operands of one shape; ShapeInference::InferBinaryOpShape (add,
  // ..., shifts, atan2, compare, complex).
  kElementwiseBinary,
  // select, clamp: ShapeInference::InferTernaryOpShape.
  kElementwiseTernary,
  // Element type changes, dimensions do not: convert, bitcast-convert (same
  // width), stochastic-convert (value and random bits).
  kElementwiseConversion,
  // Elementwise with rules of their own: copy (also of tuples), map (a called
  // computation).
  kElementwiseOther,
  // Communication between replicas, synchronous or the start of an async pair.
  kCollective,
};

HloOpcodeClass HloOpcodeClassOf(HloOpcode opcode);

// Properties that cut across classes, one bit each in the table.
enum HloOpcodeFlag : uint8_t {
  // Unary elementwise over floating-point or complex values only (exp, log,
  // the trigonometric functions, ...: the ones XLA gives result_accuracy=).
  kFloatingOnly = 1 << 0,
  kStartsAsyncPair = 1 << 1,    // *-start, send, recv.
  kFinishesAsyncPair = 1 << 2,  // *-done.
};

bool HloOpcodeHasFlag(HloOpcode opcode, HloOpcodeFlag flag);

}  // namespace hmo

#endif  // HMO_IR_HLO_OPCODE_CLASS_H_
