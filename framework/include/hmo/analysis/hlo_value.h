#ifndef HMO_ANALYSIS_HLO_VALUE_H_
#define HMO_ANALYSIS_HLO_VALUE_H_

// HloValue: one SSA-like value of a module, defined at one (instruction,
// ShapeIndex) position, with every position it appears at and every use that
// reads it. HloValueSet / InstructionValueSet: the values that may appear at a
// position / at every position of one instruction. Built by
// HloDataflowAnalysis (hlo_dataflow_analysis.h); the names and semantics follow
// XLA's xla/service/hlo_value.h.

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/shape.h"

namespace hmo {

class HloComputation;

// A place in the module where a value can appear: output `index` of
// `instruction`.
struct HloPosition {
  HloInstruction* instruction = nullptr;
  ShapeIndex index;

  // The sub-shape of the instruction's shape at `index`.
  const Shape& shape() const;
  // "name" for arrays, "name {1,0}" when the instruction's shape is a tuple.
  std::string ToString() const;

  bool operator==(const HloPosition& other) const {
    return instruction == other.instruction && index == other.index;
  }
  bool operator!=(const HloPosition& other) const { return !(*this == other); }
  // Orders by instruction unique id, then index (deterministic across runs).
  bool operator<(const HloPosition& other) const;

  template <typename H>
  friend H AbslHashValue(H h, const HloPosition& p) {
    return H::combine(std::move(h), p.instruction, p.index);
  }
};

// A read of a value: operand `operand_number` of `instruction`, at
// `operand_index` inside that operand's shape.
struct HloUse {
  HloInstruction* instruction = nullptr;
  int64_t operand_number = 0;
  ShapeIndex operand_index;

  // "name, operand N" (+ " {i}" when the operand's shape is a tuple).
  std::string ToString() const;

  bool operator==(const HloUse& other) const {
    return instruction == other.instruction && operand_number == other.operand_number &&
           operand_index == other.operand_index;
  }
  bool operator!=(const HloUse& other) const { return !(*this == other); }

  template <typename H>
  friend H AbslHashValue(H h, const HloUse& u) {
    return H::combine(std::move(h), u.instruction, u.operand_number, u.operand_index);
  }
};

// One value. Ids are unique within one HloDataflowAnalysis; they are assigned
// in the order XLA creates values (see hlo_dataflow_analysis.h), and every
// tie-break downstream (heap simulation, best fit) uses them.
class HloValue {
 public:
  using Id = int64_t;
  // "No color assigned yet" (XLA's BufferValue::kInvalidColor).
  static constexpr int64_t kInvalidColor = -1;

  HloValue(Id id, HloInstruction* instruction, const ShapeIndex& index, bool is_phi = false);
  HloValue(const HloValue&) = delete;
  HloValue& operator=(const HloValue&) = delete;

  Id id() const { return id_; }
  // True for a phi value created by SSA-form dataflow where several values
  // merge (while loops, conditionals).
  bool is_phi() const { return is_phi_; }

  const HloPosition& defining_position() const { return positions_[0]; }
  HloInstruction* defining_instruction() const { return positions_[0].instruction; }
  const ShapeIndex& defining_index() const { return positions_[0].index; }
  // XLA's BufferValue spellings of the same.
  HloInstruction* instruction() const { return defining_instruction(); }
  const ShapeIndex& index() const { return defining_index(); }
  // The shape at the defining position.
  const Shape& shape() const { return defining_position().shape(); }
  bool IsTopLevel() const { return defining_index().empty(); }
  bool IsTuple() const { return shape().IsTuple(); }
  bool IsArray() const { return shape().IsArray(); }

  // Every position holding this value; the defining position comes first, the
  // others in module order (computations in module order, instructions in
  // computation order, indices in pre-order).
  const std::vector<HloPosition>& positions() const { return positions_; }
  // Every use: for each position (in positions() order), each user of the
  // position's instruction (in user order) and each operand slot of the user
  // reading it. Tuple and domain operands are not uses (they forward), nor are
  // nested elements read by get-tuple-element or copy; a computation root
  // always uses its operands.
  const std::vector<HloUse>& GetUses() const { return uses_; }

  // Whether any position is the root of `computation`.
  bool IsRootOf(const HloComputation* computation) const;
  // Whether the value appears in the entry computation's result.
  bool live_out_of_module() const { return live_out_of_module_; }

  // The memory space ("color") buffer assignment gives the value; -1 until
  // colored.
  int64_t color() const { return color_; }
  bool has_color() const { return color_ != kInvalidColor; }
  void set_color(int64_t color) const { color_ = color; }

  // "<7 name{1}>" (+ " (phi)", + " @color").
  std::string ToShortString() const;
  // Short string, positions and uses, one per line.
  std::string ToString(int indent = 0) const;

  // Used by HloDataflowAnalysis once, after propagation: the non-defining
  // positions. Also computes the uses and the live-out flag.
  void SetPositions(absl::Span<const HloPosition> positions);

 private:
  std::vector<HloUse> ComputeUses() const;

  Id id_;
  bool is_phi_;
  std::vector<HloPosition> positions_;
  std::vector<HloUse> uses_;
  bool live_out_of_module_ = false;
  mutable int64_t color_ = kInvalidColor;
};

// Values compare by id, so `const HloValue*` heap buffers break ties the way
// XLA does (DefaultBufferOrder in heap_algorithm.h uses this).
inline bool operator<(const HloValue& a, const HloValue& b) { return a.id() < b.id(); }
inline bool HloValueIdLessThan(const HloValue* a, const HloValue* b) { return a->id() < b->id(); }
std::ostream& operator<<(std::ostream& out, const HloValue& value);

// The values that may appear at one position, sorted by id, unique.
class HloValueSet {
 public:
  HloValueSet() = default;
  explicit HloValueSet(absl::Span<const HloValue* const> values);

  const std::vector<const HloValue*>& values() const { return values_; }
  // Precondition: exactly one value.
  const HloValue& GetUniqueValue() const;
  // Adds `value`; returns whether it was new.
  bool AddValue(const HloValue* value);
  // Replaces the set by the union of `inputs`; returns whether it changed.
  bool AssignUnionOf(absl::Span<const HloValueSet* const> inputs);
  void Clear() { values_.clear(); }
  std::vector<const HloValue*> TakeValues() { return std::move(values_); }

  std::string ToString() const;
  bool operator==(const HloValueSet& other) const { return values_ == other.values_; }
  bool operator!=(const HloValueSet& other) const { return !(*this == other); }

 private:
  void SortAndUniquifyValues();
  std::vector<const HloValue*> values_;
};

// One HloValueSet per sub-shape of an instruction's shape (XLA's
// ShapeTree<HloValueSet>). Iteration visits (index, set) in pre-order.
class InstructionValueSet {
 public:
  using Node = std::pair<ShapeIndex, HloValueSet>;

  explicit InstructionValueSet(const Shape* shape);

  const Shape& shape() const { return *shape_; }
  // Precondition: `index` is valid for the shape.
  const HloValueSet& element(const ShapeIndex& index) const { return nodes_[Find(index)].second; }
  HloValueSet* mutable_element(const ShapeIndex& index) { return &nodes_[Find(index)].second; }

  std::vector<Node>::iterator begin() { return nodes_.begin(); }
  std::vector<Node>::iterator end() { return nodes_.end(); }
  std::vector<Node>::const_iterator begin() const { return nodes_.begin(); }
  std::vector<Node>::const_iterator end() const { return nodes_.end(); }
  size_t size() const { return nodes_.size(); }

  // Each element becomes the union of the inputs' elements at the same index
  // (the inputs must have compatible shapes). Returns whether anything changed.
  bool AssignUnionOf(absl::Span<const InstructionValueSet* const> inputs);
  // Each element at `index` becomes the union with `input`'s element at
  // `input_index` + `index`. Returns whether anything changed.
  bool AssignUnionOf(const InstructionValueSet& input, const ShapeIndex& input_index);
  // Copies the per-index sets of `other` (the shapes must have the same tree
  // structure, e.g. a bitcast and its array operand).
  void CopySetsFrom(const InstructionValueSet& other);

  std::string ToString() const;
  // Same value sets at every index.
  bool operator==(const InstructionValueSet& other) const;
  bool operator!=(const InstructionValueSet& other) const { return !(*this == other); }

 private:
  size_t Find(const ShapeIndex& index) const;

  const Shape* shape_;
  std::vector<Node> nodes_;
  // children_[n]: node positions of n's direct tuple elements.
  std::vector<std::vector<int32_t>> children_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HLO_VALUE_H_
