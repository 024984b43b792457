#ifndef HMO_ANALYSIS_ALIAS_INFO_H_
#define HMO_ANALYSIS_ALIAS_INFO_H_

// AliasInfo: which operands of an instruction must share their buffer with
// which outputs ("in-place" input/output pairs), plus a backend hook that may
// allow or forbid other sharing. The default rules are XLA's
// (xla/hlo/analysis/alias_info.h); a backend subclasses AliasInfo to change
// them.
//
// Default in-place pairs:
//   dynamic-update-slice      operand 0 <-> output {}
//   scatter (n operands)      operand i <-> output {i} ({} when n == 1)
//   all-reduce-start          operand i <-> output {i} ({} for one operand);
//                             none when backend_config mentions nvshmem
//   collective-permute with 4 operands: operand 1 (and its tuple elements)
//   collective-permute-start with 4 operands (in place): operand 1 <-> {1}
//   custom-call / async-start: their output_to_operand_aliasing
//   fusion: output_to_operand_aliasing plus every output whose source (through
//           tuples, get-tuple-elements and bitcasts inside the fusion) is an
//           in-place op fed by a fusion parameter
//   set-dimension-size        operand 0 <-> output {}
//   ragged-all-to-all         operand 1 <-> output {}

#include <optional>
#include <utility>
#include <vector>

#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/shape.h"

namespace hmo {

// Operand `operand_number` of an instruction, at `operand_index` inside it.
struct HloOperandIndex {
  int64_t operand_number = 0;
  ShapeIndex operand_index;
  bool operator==(const HloOperandIndex& other) const {
    return operand_number == other.operand_number && operand_index == other.operand_index;
  }
};

class AliasInfo {
 public:
  AliasInfo() = default;
  virtual ~AliasInfo() = default;

  // The (operand, output index) pairs of `user` that must share a buffer.
  std::vector<std::pair<HloOperandIndex, ShapeIndex>> GetInPlaceInputOutputPairs(
      const HloInstruction* user) const;

  // Whether `operand` at `operand_index` must share the buffer of `user` at
  // `user_index` (one of the in-place pairs).
  bool MustAlias(const HloInstruction* operand, const ShapeIndex& operand_index,
                 const HloInstruction* user, const ShapeIndex& user_index) const;

  // Backend hint for CanShareOperandBufferWithUser: a value overrides the
  // default rules; nullopt (the default) keeps them.
  virtual std::optional<bool> MayAlias(const HloInstruction* /*operand*/,
                                       const ShapeIndex& /*operand_index*/,
                                       const HloInstruction* /*user*/,
                                       const ShapeIndex& /*user_index*/) const {
    return std::nullopt;
  }

 protected:
  // Backend hook replacing the default pairs of `user` when it returns a value.
  virtual std::optional<std::vector<std::pair<HloOperandIndex, ShapeIndex>>>
  GetNonDefaultInPlaceInputOutputPairs(const HloInstruction* /*user*/) const {
    return std::nullopt;
  }
  // Instructions skipped when tracing a fusion output back to its source
  // (they do not change the underlying buffer). Default: bitcast.
  virtual bool IsNoOpForAliasAnalysis(const HloInstruction* instruction) const {
    return instruction->opcode() == HloOpcode::kBitcast;
  }

 private:
  std::vector<std::pair<HloOperandIndex, ShapeIndex>> GetFusionInstructionInPlaceInputOutputPairs(
      const HloInstruction* fusion) const;
  std::pair<const HloInstruction*, ShapeIndex> FollowNoOpIndirection(
      const HloInstruction* instruction, ShapeIndex index) const;
};

// The default AliasInfo (shared, immutable).
const AliasInfo& DefaultAliasInfo();

// Follows tuple elements, then get-tuple-elements, back to the instruction
// that produces output `index` of `instruction`:
// FollowTupleIndirection(tuple(y, gte(x, 0)), {1}) == {x, {0}}.
std::pair<const HloInstruction*, ShapeIndex> FollowTupleIndirection(
    const HloInstruction* instruction, ShapeIndex index);

// dynamic-update-slice, scatter and all-reduce-start.
bool IsDefaultInPlaceOperation(const HloInstruction* instruction);

}  // namespace hmo

#endif  // HMO_ANALYSIS_ALIAS_INFO_H_
