// HloDataflowAnalysis::CanShareOperandBufferWithUser: whether an instruction
// may write its output into the buffer of one of its operands (the rules are
// listed in order in hlo_dataflow_analysis.h).

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "analysis_check.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo {
namespace {

// Array shapes equal in type, dimensions and layout (a missing layout reads
// as the default one); tuples element by element. XLA's ShapeUtil::Equal.
bool EqualWithLayout(const Shape& a, const Shape& b) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || a.tuple_shapes_size() != b.tuple_shapes_size()) {
      return false;
    }
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!EqualWithLayout(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (!ShapeUtil::EqualIgnoringLayout(a, b)) return false;
  if (!a.IsArray()) return true;
  return ShapeUtil::LayoutOrDefault(a) == ShapeUtil::LayoutOrDefault(b);
}

// A fusion that only copies a parameter to change its tiling or memory space
// (same dimensions and dimension order), which does not move the data.
bool IsChangeTilingCopyFusion(const HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kFusion || instruction->operand_count() != 1) {
    return false;
  }
  const HloInstruction* root = instruction->fused_expression_root();
  if (root == nullptr || root->opcode() != HloOpcode::kCopy ||
      root->operand(0)->opcode() != HloOpcode::kParameter) {
    return false;
  }
  const Shape& in = instruction->operand(0)->shape();
  const Shape& out = instruction->shape();
  if (!in.IsArray() || !out.IsArray() || !ShapeUtil::EqualIgnoringLayout(in, out)) return false;
  const Layout in_layout = ShapeUtil::LayoutOrDefault(in);
  const Layout out_layout = ShapeUtil::LayoutOrDefault(out);
  return in_layout.minor_to_major() == out_layout.minor_to_major() && in_layout != out_layout;
}

}  // namespace

bool HloDataflowAnalysis::CanShareOperandBufferWithUser(HloInstruction* operand,
                                                        const ShapeIndex& operand_index,
                                                        HloInstruction* user,
                                                        const ShapeIndex& user_index,
                                                        const AliasInfo* alias_info) const {
  HMO_CHECK(user->IsUserOf(operand)) << "user: " << user->name() << " operand: " << operand->name();
  if (alias_info == nullptr) alias_info = &DefaultAliasInfo();

  // 1. The cuBLASLt workspace output is scratch, never an operand's buffer.
  if (user->opcode() == HloOpcode::kCustomCall &&
      (user->custom_call_target() == "__cublas$lt$matmul" ||
       user->custom_call_target() == "__cublas$lt$matmul$f8") &&
      user_index == ShapeIndex{1}) {
    return false;
  }
  // 2. Constants live in read-only memory.
  if (operand->opcode() == HloOpcode::kConstant) return false;

  const Shape& operand_subshape = ShapeUtil::GetSubshape(operand->shape(), operand_index);
  const Shape& user_subshape = ShapeUtil::GetSubshape(user->shape(), user_index);

  // 3. A tiling-only copy does not really move the data.
  if (IsChangeTilingCopyFusion(user) || IsChangeTilingCopyFusion(operand)) return true;

  const bool shapes_equal = EqualWithLayout(operand_subshape, user_subshape);
  // 4. In-place (must-alias) pairs whose use the value confirms.
  if (shapes_equal) {
    absl::flat_hash_set<HloUse> uses;
    for (const HloValue* value : GetValueSet(operand, operand_index).values()) {
      for (const HloUse& use : value->GetUses()) uses.insert(use);
    }
    for (const auto& [input, output_index] : alias_info->GetInPlaceInputOutputPairs(user)) {
      if (output_index != user_index) continue;
      if (uses.contains(HloUse{user, input.operand_number, input.operand_index})) return true;
    }
  }
  // 5. Backend hint.
  if (std::optional<bool> hint = alias_info->MayAlias(operand, operand_index, user, user_index)) {
    return *hint;
  }
  // 6. Shapes (and layouts) must agree from here on.
  if (!shapes_equal) return false;

  // 7. Fusions.
  if (user->opcode() == HloOpcode::kFusion) {
    HloInstruction* fusion_param = user->fused_parameter(user->operand_index(operand));
    if (user->fusion_kind() == FusionKind::kLoop || user->fusion_kind() == FusionKind::kInput) {
      return AreTransitiveUsesElementwiseOrTuple(fusion_param);
    }
    const HloInstruction* root = user->fused_expression_root();
    if (user->fusion_kind() == FusionKind::kOutput && root->opcode() == HloOpcode::kAdd) {
      // Output fusion computing dot/convolution + addend: the addend's buffer
      // may take the result when the add is its only use.
      auto is_dot_like = [](const HloInstruction* i) {
        return i->opcode() == HloOpcode::kConvolution || i->opcode() == HloOpcode::kDot;
      };
      int64_t matched = -1;
      for (int64_t i = 0; i < root->operand_count(); ++i) {
        if (is_dot_like(root->operand(i))) {
          matched = i;
          break;
        }
      }
      if (matched < 0) return false;
      const int64_t other_add_operand_index = matched == 0 ? 1 : 0;
      const HloValue& param_value = GetValueDefinedAt(fusion_param, operand_index);
      if (param_value.GetUses().size() == 1) {
        const HloUse& use = param_value.GetUses()[0];
        return use.instruction == root && use.operand_number == other_add_operand_index;
      }
      return false;
    }
  }
  // 8. Control flow passes buffers through; sharing problems inside the
  //    callees are caught there.
  if (user->opcode() == HloOpcode::kWhile || user->opcode() == HloOpcode::kConditional) return true;

  // 9. In-place updates of one operand.
  if (user->opcode() == HloOpcode::kDynamicUpdateSlice || user->opcode() == HloOpcode::kScatter ||
      user->opcode() == HloOpcode::kTriangularSolve ||
      user->opcode() == HloOpcode::kSetDimensionSize) {
    const std::vector<int64_t> operand_indices = user->OperandIndices(operand);
    const int64_t operand_no = user->opcode() == HloOpcode::kTriangularSolve ? 1 : 0;
    return operand_indices.size() == 1 && operand_indices[0] == operand_no;
  }
  // 10. Sort.
  if (user->opcode() == HloOpcode::kSort) {
    if (operand->users().size() != 1) return false;
    if (user->operand_count() == 1) return true;
    if (user_index.empty()) return false;
    const std::vector<int64_t> operand_indices = user->OperandIndices(operand);
    return operand_indices.size() == 1 && user_index[0] == operand_indices[0];
  }
  // 11. Call: the caller and the (elementwise) callee root are the only uses.
  if (user->opcode() == HloOpcode::kCall) {
    if (!ValueIsDefinedAt(operand, operand_index)) return false;
    const std::vector<HloUse>& uses = GetValueDefinedAt(operand, operand_index).GetUses();
    const HloInstruction* callee_root = user->to_apply()->root_instruction();
    const bool found_caller_use = std::any_of(
        uses.begin(), uses.end(), [&](const HloUse& use) { return use.instruction == user; });
    const bool found_elementwise_callee_use =
        std::any_of(uses.begin(), uses.end(), [&](const HloUse& use) {
          return use.instruction == callee_root &&
                 callee_root->IsElementwiseOnOperand(use.operand_number);
        });
    return uses.size() == 2 && found_caller_use && found_elementwise_callee_use;
  }
  // 12. Elementwise ops may write over their input.
  return user->IsElementwiseOnOperand(user->operand_index(operand));
}

}  // namespace hmo
