#ifndef HMO_PLUGINS_PLACEMENT_HOST_OFFLOADER_H_
#define HMO_PLUGINS_PLACEMENT_HOST_OFFLOADER_H_

// host-offloader: lowers the MoveToHost / MoveToDevice annotations (see
// convert-memory-placement-to-internal-annotations) to host memory space
// `S(5)` in layouts, following XLA's HostOffloader, so that buffer assignment
// places those buffers in host memory and the device peak drops by them.
//
// For each MoveToHost (entry computation first, then called computations, in
// post order), the data it annotates is followed forward through every
// position it flows to: tuples and get-tuple-element, while carries (body and
// condition parameters, body root, while output), calls, conditionals, async
// computations, opt-barrier and bitcasts. Every position reached gets memory
// space S(5). A path ends at a MoveToDevice, or at a dynamic-slice / slice
// whose result reaches a MoveToDevice only through bitcasts, bitcast
// reshapes and copies (a slice there becomes a dynamic-slice); those results
// stay in device memory.
// - MoveToHost feeding (through bitcasts, bitcast reshapes, copies) a
//   dynamic-update-slice: the DUS writes into a host buffer. The DUS's
//   operand 0 is traced back (through get-tuple-element, tuples, while
//   parameters, ...) to the broadcast that created it, which is replaced by
//   `custom-call(), custom_call_target="AllocateBuffer"` with an S(5) layout,
//   and every position on the way gets S(5). Only the operand slot on that
//   path reads the AllocateBuffer, so a broadcast feeding two loop-carried
//   buffers yields two AllocateBuffers (XLA gets the same by running
//   HostOffloadLegalize, which duplicates such broadcasts, first).
// - Otherwise a `copy` into S(5) is inserted where the data first leaves the
//   annotation, and a `copy` back to device memory before each MoveToDevice.
// - Entry parameters whose entry_computation_layout has S(5) are followed the
//   same way (input streaming).
// Then every MoveToHost and MoveToDevice is removed (its users use its
// operand). An instruction that computes on host data (anything but the
// forwarding ops above, or a slice not leading to MoveToDevice) is kept and
// marked `frontend_attributes={_xla_compute_type="host"}` with a warning.
//
// Where host data reaches the entry root, or a host dynamic-update-slice
// writes into an entry parameter, the entry_computation_layout says S(5) at
// that output / parameter: with the option update-entry-layout (default)
// the pass sets it; without it a layout that does not say S(5) is an error,
// as in XLA.
//
// A scheduled module stays scheduled: new instructions join the schedule
// after their operands.
//
// Not done (XLA does them): the closing HloCSE cleanup, the host-compute
// async-call output handling, and HostOffloadLegalize's other rewrites.

#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"
#include "host_offload_utils.h"

namespace hmo {

class HostOffloader : public HloPass {
 public:
  static constexpr std::string_view kName = "host-offloader";
  static constexpr std::string_view kDescription =
      "Give the buffers between MoveToHost and MoveToDevice the host memory space S(5)";

  struct Options {
    bool update_entry_layout = true;
  };
  static const PassOptionBinding<Options>& Binding();
  static PassOptionSchema OptionSchema() { return Binding().schema(); }
  static absl::StatusOr<std::unique_ptr<HostOffloader>> Create(const PassOptions& options);
  explicit HostOffloader(bool update_entry_layout = true)
      : update_entry_layout_(update_entry_layout) {}

  std::string_view name() const override { return kName; }

  // Returns whether the module changed. Errors: a host dynamic-update-slice
  // whose buffer does not come from a broadcast (or an entry parameter with
  // update-entry-layout), host data used by compute in a while condition,
  // host data reaching the entry output or written into an entry parameter
  // whose layout is not S(5) without update-entry-layout, and malformed
  // graphs the walk cannot follow.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

 private:
  using Position = host_offload_utils::InstructionAndShapeIndex;

  absl::StatusOr<bool> HandleInputStreaming(HloModule& module);
  absl::StatusOr<bool> ProcessNextMoveToHost(HloComputation* computation);
  absl::StatusOr<bool> HandleMoveToHost(HloInstruction* move_to_host);
  absl::StatusOr<bool> HandleMoveToDevice(HloInstruction* move_to_device);
  absl::StatusOr<std::vector<Position>> GetStartingPositions(HloInstruction* move_to_host);
  absl::StatusOr<bool> WalkDownHostMemoryOffloadPaths(const Position& start,
                                                      bool insert_copy_before);
  absl::StatusOr<bool> SliceLeadsToMoveToDevice(HloInstruction* slice);
  absl::Status CreateAllocateBufferForDynamicUpdateSlice(HloInstruction* dus);
  absl::StatusOr<bool> InsertCopyBetween(const Position& before, const Position& after);
  absl::Status DynamifySlice(HloInstruction* slice);
  // Makes the entry output at `index` host memory in the entry layout, or
  // errors (see update-entry-layout).
  absl::Status MarkEntryOutputAsHost(HloModule& module, const ShapeIndex& index,
                                     const HloInstruction* start);
  absl::Status MarkEntryParameterAsHost(HloModule& module, const Position& parameter,
                                        const HloInstruction* dus);
  absl::StatusOr<bool> ApplySchedulingFix(HloModule& module);

  bool update_entry_layout_ = true;

  absl::flat_hash_set<HloInstruction*> visited_move_to_hosts_;
  absl::flat_hash_set<HloInstruction*> dynamic_update_slices_already_allocated_;
  absl::flat_hash_map<HloInstruction*, HloInstruction*> copies_created_after_;
  absl::flat_hash_set<Position> already_inserted_copy_before_;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_PLACEMENT_HOST_OFFLOADER_H_
