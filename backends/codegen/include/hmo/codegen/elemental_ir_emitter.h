#ifndef HMO_CODEGEN_ELEMENTAL_IR_EMITTER_H_
#define HMO_CODEGEN_ELEMENTAL_IR_EMITTER_H_

// The elemental IR emitter: for an instruction whose output elements can be
// computed one at a time, an ElementGenerator computing output element
// `index` from generators of its operands. Composing generators (a fusion's
// instructions, a scalar sub-computation) computes whole expressions per
// element without materialising intermediates.
//
// Covered: elementwise unary/binary ops on pred, integers and floats
// (XLA's semantics for integer division by zero, out-of-range shifts,
// NaN-propagating maximum/minimum, saturating float->int convert), compare,
// select, clamp, convert, bitcast-convert (same width), broadcast, iota,
// reshape, bitcast, transpose, copy, reverse, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, map, constant, reduce-precision;
// reduce and reduce-window of one input (an array result), each element
// reducing in a loop of its own, as XLA's elemental emitter does for the
// reductions XLA:CPU leaves inside loop fusions.
// Every other opcode: UnimplementedError naming the instruction.
// Results of f16/bf16 instructions are rounded to their precision, so
// fused expressions round like unfused ones.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/codegen/element_generator.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hmo::codegen {

class ElementalIrEmitter {
 public:
  // Code goes into `b`'s insertion point at generation time; `module`
  // receives math-library declarations and constant globals.
  ElementalIrEmitter(llvm::IRBuilderBase& b, llvm::Module& module) : b_(b), module_(module) {}

  // Whether MakeGenerator handles `opcode`.
  static bool IsElementalOpcode(HloOpcode opcode);

  // The generator of `instruction` given one generator per operand (in
  // operand order). kParameter is not handled here (its generator is the
  // caller's). The returned generator refers to this emitter, which must
  // outlive it.
  absl::StatusOr<ElementGenerator> MakeGenerator(const HloInstruction& instruction,
                                                 std::vector<ElementGenerator> operands);

  // Scalar operations on compute-type values (element_types.h), exposed for
  // op emitters that combine elements themselves.
  absl::StatusOr<llvm::Value*> EmitUnaryOp(const HloInstruction& instruction, llvm::Value* x);
  absl::StatusOr<llvm::Value*> EmitBinaryOp(const HloInstruction& instruction, llvm::Value* lhs,
                                            llvm::Value* rhs);
  // The integer whose signed order is the total order of the float `value`
  // (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN).
  llvm::Value* EmitTotalOrderKey(llvm::Value* value);
  // Converts `value` of type `from` to type `to` (HLO convert semantics).
  absl::StatusOr<llvm::Value*> EmitConvert(llvm::Value* value, PrimitiveType from,
                                           PrimitiveType to);

  // Emits the scalar computation `computation` inline on `args` (one value
  // per parameter) and returns its root's value(s): one for an array root,
  // one per element of a tuple root.
  absl::StatusOr<std::vector<llvm::Value*>> EmitScalarComputation(
      const HloComputation& computation, absl::Span<llvm::Value* const> args);

  // A private constant global holding `literal`'s elements in the storage
  // type, in the physical order of `layout_shape` (the constant's shape).
  absl::StatusOr<llvm::GlobalVariable*> GetOrCreateConstantGlobal(const HloInstruction& constant);

  llvm::IRBuilderBase& builder() { return b_; }
  llvm::Module& module() { return module_; }

 private:
  absl::StatusOr<llvm::Value*> EmitFloatUnary(HloOpcode opcode, llvm::Value* x);
  absl::StatusOr<llvm::Value*> EmitIntegerUnary(HloOpcode opcode, PrimitiveType type,
                                                llvm::Value* x);
  absl::StatusOr<llvm::Value*> EmitFloatBinary(HloOpcode opcode, llvm::Value* lhs,
                                               llvm::Value* rhs);
  absl::StatusOr<llvm::Value*> EmitIntegerBinary(HloOpcode opcode, PrimitiveType type,
                                                 llvm::Value* lhs, llvm::Value* rhs);
  llvm::Value* EmitCompare(const HloInstruction& instruction, PrimitiveType type, llvm::Value* lhs,
                           llvm::Value* rhs);
  llvm::Value* EmitFloatMax(llvm::Value* a, llvm::Value* b, bool is_max);
  llvm::Value* EmitIntegerPower(PrimitiveType type, llvm::Value* base, llvm::Value* exponent);
  // reduce-precision of a float compute value to `exponent_bits` /
  // `mantissa_bits` (round to nearest even, overflow to inf, underflow of
  // the reduced format to zero, NaN kept).
  llvm::Value* EmitReducePrecision(llvm::Value* x, int64_t exponent_bits, int64_t mantissa_bits);
  // Rounds a float compute value to f16/bf16 precision (no-op for others).
  llvm::Value* RoundToType(PrimitiveType type, llvm::Value* value);
  // Calls the libm function `name_f32` / `name_f64` by the value's type.
  llvm::Value* CallLibm(const char* name_f32, const char* name_f64,
                        absl::Span<llvm::Value* const> args);
  llvm::Value* CallIntrinsic(llvm::Intrinsic::ID id, absl::Span<llvm::Value* const> args);
  absl::StatusOr<ElementGenerator> MakeConstantGenerator(const HloInstruction& constant);
  absl::StatusOr<ElementGenerator> MakeConcatenateGenerator(const HloInstruction& instruction,
                                                            std::vector<ElementGenerator> operands);
  absl::StatusOr<ElementGenerator> MakePadGenerator(const HloInstruction& instruction,
                                                    std::vector<ElementGenerator> operands);
  absl::StatusOr<ElementGenerator> MakeDynamicUpdateSliceGenerator(
      const HloInstruction& instruction, std::vector<ElementGenerator> operands);
  // reduce and reduce-window of one input: each output element loops over
  // its reduced dimensions (window) in an accumulator of its own.
  absl::StatusOr<ElementGenerator> MakeReduceGenerator(const HloInstruction& instruction,
                                                       std::vector<ElementGenerator> operands);
  absl::StatusOr<ElementGenerator> MakeReduceWindowGenerator(
      const HloInstruction& instruction, std::vector<ElementGenerator> operands);
  // A stack slot in the entry block of the function being emitted (so a loop
  // does not grow the stack), holding `init` from the current point on.
  llvm::AllocaInst* EmitAccumulator(llvm::Value* init, std::string_view name);
  // accumulator = to_apply(accumulator, value).
  absl::Status EmitAccumulate(const HloInstruction& reduction, llvm::AllocaInst* accumulator,
                              llvm::Value* value);

  llvm::IRBuilderBase& b_;
  llvm::Module& module_;
};

// Emits a two-way choice: computes `then_value` when `condition` (i1) holds,
// else `else_value`, each in its own block, and returns the merged value.
absl::StatusOr<llvm::Value*> EmitIfThenElse(
    llvm::IRBuilderBase& b, llvm::Value* condition,
    const std::function<absl::StatusOr<llvm::Value*>()>& then_value,
    const std::function<absl::StatusOr<llvm::Value*>()>& else_value, std::string_view name);

// The symbol of the read-only, 64-byte aligned global holding the bytes of
// `constant` (in its layout). A constant allocation of the buffer assignment
// is this global: the caller puts its address in the buffer table, and the
// generated code never copies the constant into an arena.
std::string ConstantGlobalName(const HloInstruction& constant);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_ELEMENTAL_IR_EMITTER_H_
