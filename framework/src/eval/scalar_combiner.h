#ifndef HMO_EVAL_SCALAR_COMBINER_H_
#define HMO_EVAL_SCALAR_COMBINER_H_

// Applying a reducer computation (reduce, reduce-window, scatter, map) to
// scalars. The general path evaluates the computation on scalar Literals for
// each step; reducers that are a single binary opcode of their two parameters
// (add, maximum, ...) take a native path that computes the same thing
// without building Literals, which keeps real models fast.

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "element_types.h"
#include "elementwise_apply.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/literal.h"
#include "opcode_handlers.h"

namespace hmo::eval_internal {

// When `computation` is `ROOT r = op(parameter(0), parameter(1))` on scalars
// of one element type (either operand order for commutative ops), returns op.
std::optional<HloOpcode> MatchSimpleBinaryReducer(const HloComputation& computation);

// A new scalar literal holding element `index` of `array`.
Literal ScalarAt(const Literal& array, int64_t index);

// Element `index` of `array` = the value of `scalar`.
void SetElementFromScalar(Literal* array, int64_t index, const Literal& scalar);

// Runs `computation` on `args` and splits the result into one scalar per
// output (the tuple elements, or the single value).
absl::StatusOr<std::vector<Literal>> ApplyScalarComputation(const HloComputation& computation,
                                                            std::vector<Literal> args,
                                                            const ComputationRunner& run);

// Accumulates into one output element from a sequence of input elements,
// acc = op(acc, x), rounding to the element type on every step. `op` must be
// one ApplyBinaryOp accepts for the type.
template <PrimitiveType kT>
class NativeAccumulator {
 public:
  NativeAccumulator(HloOpcode op, const Literal& input, const Literal& init, Literal* output)
      : op_(op),
        input_(RawBytes(input)),
        init_(LoadElement<kT>(RawBytes(init), 0)),
        output_(MutableRawBytes(output)) {}
  void Reset() { acc_ = init_; }
  absl::Status Add(int64_t input_index) {
    NativeOf<kT> next{};
    ApplyBinaryOp<NativeOf<kT>>(op_, acc_, LoadElement<kT>(input_, input_index), &next);
    acc_ = RoundToElementType<kT>(next);
    return absl::OkStatus();
  }
  void Store(int64_t output_index) { StoreElement<kT>(output_, output_index, acc_); }

 private:
  HloOpcode op_;
  const uint8_t* input_;
  NativeOf<kT> init_;
  NativeOf<kT> acc_{};
  uint8_t* output_;
};

// The same for any reducer computation over N inputs at once (variadic
// reduce): the computation takes (acc_0..acc_N-1, x_0..x_N-1).
class ComputationAccumulator {
 public:
  ComputationAccumulator(const HloComputation& computation, std::vector<const Literal*> inputs,
                         std::vector<const Literal*> inits, std::vector<Literal*> outputs,
                         const ComputationRunner& run)
      : computation_(computation),
        inputs_(std::move(inputs)),
        inits_(std::move(inits)),
        outputs_(std::move(outputs)),
        run_(run) {}
  void Reset();
  absl::Status Add(int64_t input_index);
  void Store(int64_t output_index);

 private:
  const HloComputation& computation_;
  std::vector<const Literal*> inputs_;
  std::vector<const Literal*> inits_;
  std::vector<Literal*> outputs_;
  const ComputationRunner& run_;
  std::vector<Literal> acc_;
};

// Calls fn(accumulator) with a NativeAccumulator when the reducer qualifies
// (one input, simple binary reducer defined on the type), otherwise with a
// ComputationAccumulator.
template <typename Fn>
absl::Status WithAccumulator(const HloComputation& reducer, std::vector<const Literal*> inputs,
                             std::vector<const Literal*> inits, std::vector<Literal*> outputs,
                             const ComputationRunner& run, Fn&& fn) {
  std::optional<HloOpcode> op = MatchSimpleBinaryReducer(reducer);
  if (op.has_value() && inputs.size() == 1 && IsEvaluatorElementType(inputs[0]->element_type()) &&
      inputs[0]->element_type() == outputs[0]->element_type() &&
      inits[0]->element_type() == outputs[0]->element_type()) {
    return SwitchOnElementType(inputs[0]->element_type(), "reducer", [&](auto tag) -> absl::Status {
      constexpr PrimitiveType kT = decltype(tag)::value;
      using N = NativeOf<kT>;
      N probe;
      if (!ApplyBinaryOp<N>(*op, N{}, N{1}, &probe)) {
        ComputationAccumulator general(reducer, inputs, inits, outputs, run);
        return fn(general);
      }
      NativeAccumulator<kT> native(*op, *inputs[0], *inits[0], outputs[0]);
      return fn(native);
    });
  }
  ComputationAccumulator general(reducer, std::move(inputs), std::move(inits), std::move(outputs),
                                 run);
  return fn(general);
}

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_SCALAR_COMBINER_H_
