#ifndef HMO_IR_HLO_MODULE_H_
#define HMO_IR_HLO_MODULE_H_

// An HLO module: computations (one of them the entry), the entry's external
// layout, input/output aliasing and buffer donors, an optional schedule, and
// the header attributes of `HloModule name, attr=value, ...`.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "hmo/ir/computation_layout.h"
#include "hmo/ir/frontend_attributes.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_input_output_alias_config.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/ir/stack_frame_index.h"

namespace hmo {

// Iterable over the module's computations, yielding HloComputation*.
template <typename CompPtr>
class HloComputationRange {
 public:
  using Slots = std::vector<std::unique_ptr<HloComputation>>;
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = CompPtr;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = CompPtr;
    iterator(typename Slots::const_iterator it) : it_(it) {}
    CompPtr operator*() const { return it_->get(); }
    iterator& operator++() { ++it_; return *this; }
    bool operator==(const iterator& o) const { return it_ == o.it_; }
    bool operator!=(const iterator& o) const { return it_ != o.it_; }

   private:
    typename Slots::const_iterator it_;
  };
  explicit HloComputationRange(const Slots* slots) : slots_(slots) {}
  iterator begin() const { return iterator(slots_->begin()); }
  iterator end() const { return iterator(slots_->end()); }
  size_t size() const { return slots_->size(); }

 private:
  const Slots* slots_;
};

class HloModule {
 public:
  explicit HloModule(std::string name);
  ~HloModule();
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Module-wide id for debugging output; unrelated to instruction ids.
  int64_t unique_id() const { return unique_id_; }

  // --------------------------------------------------------- computations
  // In module order (text order for parsed modules; addition order else).
  HloComputationRange<HloComputation*> computations() const {
    return HloComputationRange<HloComputation*>(&computations_);
  }
  int64_t computation_count() const { return static_cast<int64_t>(computations_.size()); }
  // Total instructions in all computations.
  int64_t instruction_count() const;
  HloComputation* entry_computation() const { return entry_; }
  bool has_entry_computation() const { return entry_ != nullptr; }
  HloComputation* GetComputationWithName(std::string_view name) const;

  // Takes ownership and appends. The computation and its instructions get
  // unique ids; their names are registered in the module's name set, and
  // renamed when `uniquify_names` is true and a name is taken. Returns it.
  HloComputation* AddComputation(std::unique_ptr<HloComputation> computation,
                                 bool is_entry = false, bool uniquify_names = true);
  HloComputation* AddEntryComputation(std::unique_ptr<HloComputation> computation) {
    return AddComputation(std::move(computation), /*is_entry=*/true);
  }
  HloComputation* AddEmbeddedComputation(std::unique_ptr<HloComputation> computation) {
    return AddComputation(std::move(computation), /*is_entry=*/false);
  }
  // Makes an already-added computation the entry.
  void set_entry_computation(HloComputation* computation) { entry_ = computation; }

  // Removes a computation. Errors: it is the entry or still has callers.
  absl::Status RemoveComputation(HloComputation* computation);
  // Removes `instruction` (dead: no users, not a root, no control edges)
  // from its computation and, when that computation is scheduled, from its
  // sequence; a fusion's fused computation goes too once nothing else calls
  // it. Errors as HloComputation::RemoveInstruction.
  absl::Status RemoveDeadInstruction(HloInstruction* instruction);
  // Removes every computation not reachable from the entry; returns how many.
  int64_t RemoveUnusedComputations();

  // Callees before callers (each computation once), following module order
  // for the roots of the walk; unreachable computations are included.
  std::vector<HloComputation*> MakeComputationPostOrder() const;
  // MakeComputationPostOrder minus fusion computations.
  std::vector<HloComputation*> MakeNonfusionComputations() const;

  // ------------------------------------------------------------- layouts
  // The written `entry_computation_layout`, or, when none was written (or it
  // was cleared), one inferred from the entry's parameter and root shapes.
  ComputationLayout entry_computation_layout() const;
  // Whether a layout was written / set explicitly (it is then printed).
  bool has_explicit_entry_computation_layout() const { return entry_layout_.has_value(); }
  void set_entry_computation_layout(ComputationLayout layout) { entry_layout_ = std::move(layout); }
  // Precondition: has_explicit_entry_computation_layout().
  ComputationLayout* mutable_entry_computation_layout() { return &*entry_layout_; }
  void clear_entry_computation_layout() { entry_layout_.reset(); }

  // ------------------------------------------------------------ aliasing
  const HloInputOutputAliasConfig& input_output_alias_config() const { return alias_config_; }
  HloInputOutputAliasConfig& input_output_alias_config() { return alias_config_; }
  const HloBufferDonorConfig& buffer_donor_config() const { return buffer_donor_config_; }
  HloBufferDonorConfig& buffer_donor_config() { return buffer_donor_config_; }

  // ------------------------------------------------------------ schedule
  bool has_schedule() const { return schedule_ != nullptr; }
  // Precondition: has_schedule().
  const HloSchedule& schedule() const { return *schedule_; }
  HloSchedule& schedule() { return *schedule_; }
  // Error if the schedule's module is not this module or it does not verify.
  // Puts each scheduled computation's instructions in sequence order.
  absl::Status set_schedule(HloSchedule schedule);
  void clear_schedule() { schedule_.reset(); }
  // Puts each scheduled computation's instructions in sequence order (the
  // order the text prints), after the sequences were edited in place: the
  // module and its text then number values, and order computations, alike.
  // The pass manager calls it after every pass that changed a module.
  void SyncInstructionOrderWithSchedule();
  // `is_scheduled=true` is printed exactly when has_schedule().
  bool is_scheduled() const { return has_schedule(); }

  // ---------------------------------------------------- header attributes
  bool alias_passthrough_params() const { return alias_passthrough_params_; }
  void set_alias_passthrough_params(bool v) { alias_passthrough_params_ = v; }
  int64_t replica_count() const { return replica_count_; }
  void set_replica_count(int64_t v) { replica_count_ = v; }
  int64_t num_partitions() const { return num_partitions_; }
  void set_num_partitions(int64_t v) { num_partitions_ = v; }
  const FrontendAttributes& frontend_attributes() const { return frontend_attributes_; }
  FrontendAttributes* mutable_frontend_attributes() { return &frontend_attributes_; }
  // Other header attributes (allow_spmd_sharding_propagation_to_*, ...),
  // verbatim, in text order.
  const std::vector<HloRawAttribute>& raw_attributes() const { return raw_attributes_; }
  std::vector<HloRawAttribute>* mutable_raw_attributes() { return &raw_attributes_; }
  std::optional<std::string_view> GetRawAttribute(std::string_view name) const;

  // ------------------------------------------------ source locations
  // Where the header wrote an attribute (the attribute's name; kName: the
  // module's name), for a parsed module; unknown ({0, 0}) otherwise. Module-
  // level diagnostics point there; it is no part of the module's meaning.
  enum class HeaderAttribute {
    kName,
    kEntryComputationLayout,
    kInputOutputAlias,
    kBufferDonor,
    kIsScheduled,
    kCount
  };
  HloInstruction::SourceLocation header_location(HeaderAttribute attribute) const {
    return header_locations_[static_cast<size_t>(attribute)];
  }
  void set_header_location(HeaderAttribute attribute, HloInstruction::SourceLocation location) {
    header_locations_[static_cast<size_t>(attribute)] = location;
  }

  // The FileNames/FunctionNames/FileLocations/StackFrames tables that
  // instruction metadata's `stack_frame_id` refers to (empty when the text
  // had none). Printed after the header.
  const StackFrameIndex& stack_frame_index() const { return stack_frame_index_; }
  StackFrameIndex* mutable_stack_frame_index() { return &stack_frame_index_; }

  // ------------------------------------------------------------- names
  // A name not used by any computation or instruction of this module:
  // `prefix` itself if free, else `prefix.N` (a trailing `.N` of prefix is
  // replaced). The name is reserved.
  std::string GetUniqueName(std::string_view prefix);
  // Reserves a name; returns false if it was already used.
  bool RegisterName(std::string_view name);
  bool IsNameUsed(std::string_view name) const;
  // Next instruction unique id (used by HloComputation::AddInstruction).
  int64_t NewUniqueInstructionId() { return next_instruction_id_++; }

  // --------------------------------------------------------------- misc
  // Deep copy: same names, ids reassigned in the same order, schedule and
  // configs mapped onto the copy. `suffix` (if non-empty) is appended to
  // the module name as `name-suffix`.
  std::unique_ptr<HloModule> Clone(std::string_view suffix = "") const;
  // Takes the computations, schedule, configurations and name registry of
  // `other` (typically a changed Clone() of this module, when a pass keeps
  // the better of several attempts), keeping this module's name and id.
  // Pointers into this module's old contents dangle afterwards; pointers
  // into `other`'s contents now point into this module.
  void ReplaceContentsWith(std::unique_ptr<HloModule> other);

  // Canonical HLO text (see hmo/ir/hlo_printer.h); computations in post
  // order, instructions in schedule order when scheduled.
  std::string ToString() const;

 private:
  std::string name_;
  int64_t unique_id_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  std::optional<ComputationLayout> entry_layout_;
  HloInputOutputAliasConfig alias_config_;
  HloBufferDonorConfig buffer_donor_config_;
  std::unique_ptr<HloSchedule> schedule_;
  bool alias_passthrough_params_ = false;
  int64_t replica_count_ = 1;
  int64_t num_partitions_ = 1;
  FrontendAttributes frontend_attributes_;
  std::vector<HloRawAttribute> raw_attributes_;
  std::array<HloInstruction::SourceLocation, static_cast<size_t>(HeaderAttribute::kCount)>
      header_locations_{};
  StackFrameIndex stack_frame_index_;
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_map<std::string, int64_t> name_counters_;
  int64_t next_instruction_id_ = 0;
  int64_t next_computation_id_ = 0;
};

}  // namespace hmo

#endif  // HMO_IR_HLO_MODULE_H_
