// map: the to_apply computation applied to the operands' elements at each
// index.

#include "index_space.h"
#include "opcode_handlers.h"
#include "scalar_combiner.h"

namespace hmo::eval_internal {

absl::StatusOr<Literal> HandleMap(const HloInstruction& instr, Operands operands,
                                  const ComputationRunner& run) {
  Literal out(instr.shape());
  const int64_t n = out.element_count();
  for (int64_t i = 0; i < n; ++i) {
    std::vector<Literal> args;
    args.reserve(operands.size());
    for (const Literal* operand : operands) args.push_back(ScalarAt(*operand, i));
    absl::StatusOr<Literal> value = run(*instr.to_apply(), args);
    if (!value.ok()) return value.status();
    SetElementFromScalar(&out, i, *value);
  }
  return out;
}

}  // namespace hmo::eval_internal
