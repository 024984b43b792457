#ifndef HMO_IR_HLO_COMPUTATION_H_
#define HMO_IR_HLO_COMPUTATION_H_

// A computation: an ordered list of instructions with one root, owned by an
// HloModule. Instruction order is the text order (or the order of
// AddInstruction calls) and is stable: removing an instruction does not
// reorder the others.

#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo {

class HloModule;

// Iterable view over a computation's live instructions (skips removed
// slots). Yields HloInstruction* (or const HloInstruction* for the const
// view). Adding instructions invalidates iterators; removing does not.
template <typename InstrPtr>
class HloInstructionRange {
 public:
  using Slots = std::vector<std::unique_ptr<HloInstruction>>;
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = InstrPtr;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = InstrPtr;
    iterator(const Slots* slots, size_t i) : slots_(slots), i_(i) { Skip(); }
    InstrPtr operator*() const { return (*slots_)[i_].get(); }
    iterator& operator++() { ++i_; Skip(); return *this; }
    iterator operator++(int) { iterator t = *this; ++*this; return t; }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }

   private:
    void Skip() { while (i_ < slots_->size() && (*slots_)[i_] == nullptr) ++i_; }
    const Slots* slots_;
    size_t i_;
  };
  explicit HloInstructionRange(const Slots* slots) : slots_(slots) {}
  iterator begin() const { return iterator(slots_, 0); }
  iterator end() const { return iterator(slots_, slots_->size()); }

 private:
  const Slots* slots_;
};

class HloComputation {
 public:
  explicit HloComputation(std::string name);
  ~HloComputation();
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;

  const std::string& name() const { return name_; }
  // Renames without uniquifying (the module's name set is updated if any).
  void SetAndSanitizeName(std::string_view name);
  // Module-wide id, assigned when added to a module; -1 before.
  int64_t unique_id() const { return unique_id_; }
  void SetUniqueId(int64_t id) { unique_id_ = id; }

  // ---------------------------------------------------------- instructions
  HloInstructionRange<HloInstruction*> instructions() { return HloInstructionRange<HloInstruction*>(&instructions_); }
  HloInstructionRange<const HloInstruction*> instructions() const {
    return HloInstructionRange<const HloInstruction*>(&instructions_);
  }
  int64_t instruction_count() const { return instruction_count_; }
  // Instructions in order as a vector (a snapshot).
  std::vector<HloInstruction*> MakeInstructionVector() const;
  // Instruction named `name` in this computation, or null. O(instructions).
  HloInstruction* GetInstructionWithName(std::string_view name) const;

  // Takes ownership and appends. If the instruction has no name, or (when this
  // computation is in a module) its name is already used in the module, it is
  // given a unique name (`new_name` or its name or the opcode text, plus a
  // `.N` suffix when needed). In a module, the instruction gets a unique id.
  // Returns the added instruction.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction,
                                 std::string_view new_name = "");
  // Adds a parameter; its parameter_number must equal num_parameters().
  HloInstruction* AddParameter(std::unique_ptr<HloInstruction> parameter);

  // Removes a dead instruction. Errors: it has users, is the root, has
  // control edges, or is a parameter. The object stays allocated until the
  // computation is destroyed (pointers held elsewhere stay valid to compare,
  // but it is no longer part of the computation).
  absl::Status RemoveInstruction(HloInstruction* instruction);
  // Removes `instruction` and then, transitively, each operand that became
  // dead (never parameters, the root, or instructions with control edges or
  // side effects).
  absl::Status RemoveInstructionAndUnusedOperands(HloInstruction* instruction);
  // Replaces every use of `old_instruction` by `new_instruction` (root
  // included), moves old's control edges to new, then removes old and its
  // now-dead operands. Error if the shapes are incompatible (layout ignored).
  absl::Status ReplaceInstruction(HloInstruction* old_instruction, HloInstruction* new_instruction);
  absl::Status ReplaceInstructionWithDifferentShape(HloInstruction* old_instruction,
                                                    HloInstruction* new_instruction);
  // Adds `new_instruction` and then ReplaceInstruction(old, added).
  absl::Status ReplaceWithNewInstruction(HloInstruction* old_instruction,
                                         std::unique_ptr<HloInstruction> new_instruction);
  // Like ReplaceWithNewInstruction (shapes may differ), but the new
  // instruction takes the old one's place in instruction order and, when
  // `new_instruction` has no name, its name. `old_instruction` is removed
  // even if it still has operands that become dead (they are kept).
  // Returns the new instruction.
  absl::StatusOr<HloInstruction*> ReplaceWithNewInstructionInPlace(
      HloInstruction* old_instruction, std::unique_ptr<HloInstruction> new_instruction);

  // -------------------------------------------------------------- root
  HloInstruction* root_instruction() const { return root_; }
  // Precondition: `root` belongs to this computation.
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  // -------------------------------------------------------- parameters
  // Indexed by parameter number.
  const std::vector<HloInstruction*>& parameter_instructions() const { return parameters_; }
  HloInstruction* parameter_instruction(int64_t i) const { return parameters_[i]; }
  int64_t num_parameters() const { return static_cast<int64_t>(parameters_.size()); }

  // ----------------------------------------------------------- ordering
  // XLA's post order: for every instruction without users (in instruction
  // order, the root included), a DFS that visits operands first-operand-first
  // and control predecessors before operands; each instruction once.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;

  // ----------------------------------------------------------- callers
  HloModule* parent() const { return parent_; }
  // Instructions (anywhere in the module) that call this computation.
  const std::vector<HloInstruction*>& caller_instructions() const { return callers_; }
  // Callers with the given opcode.
  std::vector<HloInstruction*> caller_instructions(HloOpcode opcode) const;
  // Called by a fusion instruction's calls=.
  bool IsFusionComputation() const { return FusionInstruction() != nullptr; }
  // The fusion instruction calling this computation, or null.
  HloInstruction* FusionInstruction() const;
  // Called by async-start/update/done.
  bool IsAsyncComputation() const;
  bool IsEntryComputation() const;
  // Distinct computations called by instructions of this one, in order.
  std::vector<HloComputation*> MakeEmbeddedComputationsList() const;

  // `execution_thread="..."` after the closing brace; "main" by default.
  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string_view t) { execution_thread_ = std::string(t); }
  bool IsMainThread() const { return execution_thread_ == "main"; }

  // Text of the computation (`name {` ... `}`), as in module printing.
  std::string ToString() const;

  // Puts the instructions in `order` first, in that order, the others after
  // them in their current order; entries that are not instructions of this
  // computation are ignored. The text of a scheduled module lists
  // instructions in sequence order, so a schedule makes it the instruction
  // order too (analyses number values in an order derived from it).
  void ReorderInstructions(absl::Span<HloInstruction* const> order);

  // ------------------------------------------------------------ internals
  void set_parent(HloModule* module) { parent_ = module; }
  void AddCaller(HloInstruction* caller);
  void RemoveCaller(HloInstruction* caller);
  // Frees removed instructions. Invalidates pointers to them.
  void Cleanup();

 private:
  friend class HloModule;
  absl::Status RemoveInstructionImpl(HloInstruction* instruction);

  std::string name_;
  int64_t unique_id_ = -1;
  HloModule* parent_ = nullptr;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;  // null = removed
  int64_t instruction_count_ = 0;
  std::vector<std::unique_ptr<HloInstruction>> to_be_deleted_;
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
  std::vector<HloInstruction*> callers_;
  std::string execution_thread_ = "main";
};

}  // namespace hmo

#endif  // HMO_IR_HLO_COMPUTATION_H_
