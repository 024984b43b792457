#include "hmo/analysis/alias_info.h"

#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo {

bool IsDefaultInPlaceOperation(const HloInstruction* instruction) {
  const HloOpcode opcode = instruction->opcode();
  return opcode == HloOpcode::kDynamicUpdateSlice || opcode == HloOpcode::kScatter ||
         opcode == HloOpcode::kAllReduceStart;
}

const AliasInfo& DefaultAliasInfo() {
  static const AliasInfo* const kDefault = new AliasInfo();
  return *kDefault;
}

std::pair<const HloInstruction*, ShapeIndex> FollowTupleIndirection(
    const HloInstruction* instruction, ShapeIndex index) {
  while (instruction->opcode() == HloOpcode::kTuple && !index.empty()) {
    instruction = instruction->operand(index.front());
    index.erase(index.begin());
  }
  while (instruction->opcode() == HloOpcode::kGetTupleElement) {
    index.insert(index.begin(), instruction->tuple_index());
    instruction = instruction->operand(0);
  }
  return {instruction, index};
}

std::pair<const HloInstruction*, ShapeIndex> AliasInfo::FollowNoOpIndirection(
    const HloInstruction* instruction, ShapeIndex index) const {
  // Only whole arrays are followed through no-op wrappers.
  while (index.empty() && IsNoOpForAliasAnalysis(instruction)) {
    instruction = instruction->operand(0);
  }
  return {instruction, index};
}

namespace {

std::vector<std::pair<HloOperandIndex, ShapeIndex>> PairsFromOutputToOperandAliasing(
    const HloInstruction* instruction) {
  std::vector<std::pair<HloOperandIndex, ShapeIndex>> pairs;
  for (const OutputOperandAlias& alias : instruction->output_to_operand_aliasing()) {
    pairs.push_back({HloOperandIndex{alias.operand_number, alias.operand_index}, alias.output_index});
  }
  return pairs;
}

}  // namespace

std::vector<std::pair<HloOperandIndex, ShapeIndex>>
AliasInfo::GetFusionInstructionInPlaceInputOutputPairs(const HloInstruction* fusion) const {
  std::vector<std::pair<HloOperandIndex, ShapeIndex>> result;
  auto follow_indirections = [&](const HloInstruction* instruction, ShapeIndex index) {
    std::tie(instruction, index) = FollowTupleIndirection(instruction, std::move(index));
    return FollowNoOpIndirection(instruction, std::move(index));
  };
  // For every array output of the fusion, find the instruction inside that
  // really produces it; if that instruction updates one of its inputs in place
  // and the input comes (through indirections) from a fusion parameter, that
  // fusion operand and output must alias.
  ShapeUtil::ForEachLeafShape(fusion->shape(), [&](const Shape&, const ShapeIndex& index) {
    const HloInstruction* output_source = fusion->fused_expression_root();
    ShapeIndex output_source_index = index;
    std::tie(output_source, output_source_index) =
        follow_indirections(output_source, output_source_index);

    const HloInstruction* input_source = nullptr;
    ShapeIndex input_index;
    for (const auto& [input, output_index] : GetInPlaceInputOutputPairs(output_source)) {
      if (output_index != output_source_index) continue;
      input_source = output_source->operand(input.operand_number);
      input_index = input.operand_index;
      std::tie(input_source, input_index) = follow_indirections(input_source, input_index);
      if (input_source->opcode() == HloOpcode::kFusion) {
        // A nested in-place fusion lets us look through to its producer.
        for (const auto& nested : GetInPlaceInputOutputPairs(input_source)) {
          if (nested.second == input_index) {
            input_index = nested.first.operand_index;
            input_source = input_source->operand(nested.first.operand_number);
            std::tie(input_source, input_index) = follow_indirections(input_source, input_index);
          }
        }
      }
    }
    if (input_source != nullptr && input_source->opcode() == HloOpcode::kParameter) {
      result.push_back({HloOperandIndex{input_source->parameter_number(), input_index}, index});
    }
  });
  return result;
}

std::vector<std::pair<HloOperandIndex, ShapeIndex>> AliasInfo::GetInPlaceInputOutputPairs(
    const HloInstruction* user) const {
  if (auto hint = GetNonDefaultInPlaceInputOutputPairs(user)) return *hint;

  if (user->opcode() == HloOpcode::kAllReduceStart) {
    // nvshmem's one-shot all-reduce needs distinct input and output buffers.
    std::string config = absl::AsciiStrToLower(std::string(user->backend_config_text()));
    if (absl::StrContains(config, "nvshmem")) return {};
  }
  if (IsDefaultInPlaceOperation(user)) {
    int64_t num_in_place_operands = user->operand_count();
    if (user->opcode() == HloOpcode::kScatter) {
      // scatter(operands..., indices, updates...): n operands, 2n + 1 in all.
      num_in_place_operands = (user->operand_count() - 1) / 2;
    } else if (user->opcode() == HloOpcode::kDynamicUpdateSlice) {
      num_in_place_operands = 1;
    }
    if (num_in_place_operands == 1) return {{HloOperandIndex{0, {}}, {}}};
    std::vector<std::pair<HloOperandIndex, ShapeIndex>> pairs;
    for (int64_t i = 0; i < num_in_place_operands; ++i) {
      pairs.push_back({HloOperandIndex{i, {}}, {i}});
    }
    return pairs;
  }

  switch (user->opcode()) {
    case HloOpcode::kCollectivePermute:
      if (user->operand_count() == 4) {
        if (user->operand(1)->shape().IsTuple()) {
          std::vector<std::pair<HloOperandIndex, ShapeIndex>> pairs{{HloOperandIndex{1, {}}, {}}};
          for (int64_t i = 0; i < user->operand(1)->shape().tuple_shapes_size(); ++i) {
            pairs.push_back({HloOperandIndex{1, {i}}, {i}});
          }
          return pairs;
        }
        return {{HloOperandIndex{1, {}}, {}}};
      }
      return {};
    case HloOpcode::kCollectivePermuteStart:
      // The 4-operand form (input, output, input/output start indices) is the
      // in-place collective-permute.
      if (user->operand_count() == 4) {
        if (user->operand(1)->shape().IsTuple()) {
          std::vector<std::pair<HloOperandIndex, ShapeIndex>> pairs{{HloOperandIndex{1, {}}, {1}}};
          for (int64_t i = 0; i < user->operand(1)->shape().tuple_shapes_size(); ++i) {
            pairs.push_back({HloOperandIndex{1, {i}}, {1, i}});
          }
          return pairs;
        }
        return {{HloOperandIndex{1, {}}, {1}}};
      }
      return {};
    case HloOpcode::kCustomCall:
    case HloOpcode::kAsyncStart:
      return PairsFromOutputToOperandAliasing(user);
    case HloOpcode::kFusion: {
      // Discovered pairs first, then the annotated ones.
      auto pairs = GetFusionInstructionInPlaceInputOutputPairs(user);
      for (auto& pair : PairsFromOutputToOperandAliasing(user)) pairs.push_back(std::move(pair));
      return pairs;
    }
    case HloOpcode::kSetDimensionSize:
      return {{HloOperandIndex{0, {}}, {}}};
    case HloOpcode::kRaggedAllToAll:
      return {{HloOperandIndex{1, {}}, {}}};
    default:
      return {};
  }
}

bool AliasInfo::MustAlias(const HloInstruction* operand, const ShapeIndex& operand_index,
                          const HloInstruction* user, const ShapeIndex& user_index) const {
  for (const auto& [input, output_index] : GetInPlaceInputOutputPairs(user)) {
    if (user->operand(input.operand_number) == operand && input.operand_index == operand_index &&
        output_index == user_index) {
      return true;
    }
  }
  return false;
}

}  // namespace hmo
