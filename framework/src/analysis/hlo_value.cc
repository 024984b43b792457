#include "hmo/analysis/hlo_value.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "analysis_check.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

const Shape& HloPosition::shape() const {
  return ShapeUtil::GetSubshape(instruction->shape(), index);
}

std::string HloPosition::ToString() const {
  std::string index_str =
      instruction->shape().IsTuple() ? absl::StrCat(" ", ShapeIndexToString(index)) : "";
  return absl::StrCat(instruction->name(), index_str);
}

bool HloPosition::operator<(const HloPosition& other) const {
  if (instruction != other.instruction) {
    return instruction->unique_id() < other.instruction->unique_id();
  }
  return index < other.index;
}

std::string HloUse::ToString() const {
  std::string index_str = instruction->operand(operand_number)->shape().IsTuple()
                              ? absl::StrCat(" ", ShapeIndexToString(operand_index))
                              : "";
  return absl::StrCat(instruction->name(), ", operand ", operand_number, index_str);
}

HloValue::HloValue(Id id, HloInstruction* instruction, const ShapeIndex& index, bool is_phi)
    : id_(id), is_phi_(is_phi) {
  // The defining position is always positions_[0].
  positions_.push_back(HloPosition{instruction, index});
}

std::string HloValue::ToShortString() const {
  return absl::StrCat("<", id_, " ", defining_instruction()->name(),
                      defining_instruction()->shape().IsTuple() ? ShapeIndexToString(defining_index())
                                                                : "",
                      is_phi_ ? " (phi)" : "", has_color() ? absl::StrCat(" @", color_) : "", ">");
}

std::string HloValue::ToString(int indent) const {
  std::string indentation(indent, ' ');
  std::string out = absl::StrCat(indentation, ToShortString(), "\n", indentation, " positions:\n");
  for (const HloPosition& position : positions_) {
    absl::StrAppend(&out, indentation, "  ", position.ToString(), "\n");
  }
  absl::StrAppend(&out, indentation, " uses:\n");
  for (const HloUse& use : uses_) {
    absl::StrAppend(&out, indentation, "  ", use.ToString(), "\n");
  }
  return out;
}

namespace {

// Whether `user` reads the value at `index` of its operand, as opposed to
// passing it through (XLA's MayUseOperandValue).
bool MayUseOperandValue(const ShapeIndex& index, const HloInstruction* user) {
  switch (user->opcode()) {
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kCopy:
      // Only the top-level tuple table is read; nested values pass through.
      return index.empty();
    case HloOpcode::kAsyncDone:
      // Only the outputs ({1, ...}) and the top level are read.
      return index.empty() || index[0] == 1;
    case HloOpcode::kDomain:
    case HloOpcode::kTuple:
      return false;
    default:
      // call and while forward their operands too, but count as uses.
      return true;
  }
}

}  // namespace

void HloValue::SetPositions(absl::Span<const HloPosition> positions) {
  HMO_CHECK_EQ(positions_.size(), 1u) << "SetPositions should only be called once.";
  positions_.insert(positions_.end(), positions.begin(), positions.end());
  const HloModule* module = defining_instruction()->GetModule();
  live_out_of_module_ = module != nullptr && IsRootOf(module->entry_computation());
  uses_ = ComputeUses();
}

std::vector<HloUse> HloValue::ComputeUses() const {
  // A computation root counts as a use of its operands whether or not the
  // root reads them (e.g. a tuple root keeps its elements alive).
  absl::flat_hash_set<const HloInstruction*> root_positions;
  for (const HloPosition& position : positions_) {
    if (position.instruction->IsRoot()) root_positions.insert(position.instruction);
  }
  std::vector<HloUse> uses;
  for (const HloPosition& position : positions_) {
    for (HloInstruction* user : position.instruction->users()) {
      for (int64_t i = 0; i < user->operand_count(); ++i) {
        if (user->operand(i) != position.instruction) continue;
        if (MayUseOperandValue(position.index, user) || root_positions.contains(user)) {
          uses.push_back(HloUse{user, i, position.index});
        }
      }
    }
  }
  return uses;
}

bool HloValue::IsRootOf(const HloComputation* computation) const {
  return std::any_of(positions_.begin(), positions_.end(), [&](const HloPosition& position) {
    return position.instruction->IsRoot() && position.instruction->parent() == computation;
  });
}

std::ostream& operator<<(std::ostream& out, const HloValue& value) {
  return out << value.ToShortString();
}

// ------------------------------------------------------------ HloValueSet

HloValueSet::HloValueSet(absl::Span<const HloValue* const> values)
    : values_(values.begin(), values.end()) {
  SortAndUniquifyValues();
}

void HloValueSet::SortAndUniquifyValues() {
  std::sort(values_.begin(), values_.end(), HloValueIdLessThan);
  values_.erase(std::unique(values_.begin(), values_.end()), values_.end());
}

const HloValue& HloValueSet::GetUniqueValue() const {
  HMO_CHECK_EQ(values_.size(), 1u) << ToString();
  return *values_[0];
}

bool HloValueSet::AddValue(const HloValue* value) {
  auto it = std::lower_bound(values_.begin(), values_.end(), value, HloValueIdLessThan);
  if (it != values_.end() && (*it)->id() == value->id()) return false;
  values_.insert(it, value);
  return true;
}

bool HloValueSet::AssignUnionOf(absl::Span<const HloValueSet* const> inputs) {
  HloValueSet union_set;
  for (const HloValueSet* input : inputs) {
    union_set.values_.insert(union_set.values_.end(), input->values_.begin(), input->values_.end());
  }
  union_set.SortAndUniquifyValues();
  if (*this != union_set) {
    *this = std::move(union_set);
    return true;
  }
  return false;
}

std::string HloValueSet::ToString() const {
  return absl::StrCat("HloValueSet: ",
                      absl::StrJoin(values_, ", ", [](std::string* out, const HloValue* value) {
                        out->append(value->ToShortString());
                      }));
}

// ---------------------------------------------------- InstructionValueSet

InstructionValueSet::InstructionValueSet(const Shape* shape) : shape_(shape) {
  // Pre-order walk; a node's children are recorded as it is visited.
  std::vector<int32_t> parent_stack;
  ShapeUtil::ForEachSubshape(*shape, [&](const Shape&, const ShapeIndex& index) {
    const int32_t position = static_cast<int32_t>(nodes_.size());
    nodes_.emplace_back(index, HloValueSet());
    children_.emplace_back();
    if (!index.empty()) {
      // The parent is the last node whose index is index minus its last entry.
      parent_stack.resize(index.size());
      children_[parent_stack[index.size() - 1]].push_back(position);
    }
    parent_stack.resize(index.size() + 1);
    parent_stack[index.size()] = position;
  });
}

size_t InstructionValueSet::Find(const ShapeIndex& index) const {
  size_t node = 0;
  for (int64_t i : index) {
    HMO_CHECK(i >= 0 && static_cast<size_t>(i) < children_[node].size())
        << "index " << ShapeIndexToString(index) << " not in shape " << shape_->ToString();
    node = children_[node][i];
  }
  return node;
}

bool InstructionValueSet::AssignUnionOf(absl::Span<const InstructionValueSet* const> inputs) {
  HMO_CHECK(!inputs.empty());
  bool changed = false;
  std::vector<const HloValueSet*> input_sets(inputs.size());
  for (Node& node : nodes_) {
    for (size_t i = 0; i < inputs.size(); ++i) input_sets[i] = &inputs[i]->element(node.first);
    changed |= node.second.AssignUnionOf(input_sets);
  }
  return changed;
}

bool InstructionValueSet::AssignUnionOf(const InstructionValueSet& input,
                                        const ShapeIndex& input_index) {
  bool changed = false;
  for (Node& node : nodes_) {
    ShapeIndex source_index = input_index;
    source_index.insert(source_index.end(), node.first.begin(), node.first.end());
    const HloValueSet* source = &input.element(source_index);
    changed |= node.second.AssignUnionOf({source});
  }
  return changed;
}

void InstructionValueSet::CopySetsFrom(const InstructionValueSet& other) {
  HMO_CHECK_EQ(nodes_.size(), other.nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) nodes_[i].second = other.nodes_[i].second;
}

std::string InstructionValueSet::ToString() const {
  std::string out = absl::StrCat("InstructionValueSet(", shape_->ToString(false), ")\n");
  for (const Node& node : nodes_) {
    absl::StrAppend(&out, "  ", ShapeIndexToString(node.first), " : ", node.second.ToString(), "\n");
  }
  return out;
}

bool InstructionValueSet::operator==(const InstructionValueSet& other) const {
  if (nodes_.size() != other.nodes_.size()) return false;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].second != other.nodes_[i].second) return false;
  }
  return true;
}

}  // namespace hmo
