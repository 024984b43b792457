#include "host_offloader.h"

#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/layout.h"
#include "loop_overwrite.h"
#include "memory_annotations.h"
#include "spdlog/spdlog.h"

namespace hmo {
namespace {

using host_offload_utils::GetPredecessors;
using host_offload_utils::GetSuccessors;
using host_offload_utils::IsValidDuringPureMemoryOffload;
using host_offload_utils::ReshapeIsBitcast;

bool IsCustomCall(const HloInstruction* instruction, std::string_view target) {
  return instruction->opcode() == HloOpcode::kCustomCall &&
         instruction->custom_call_target() == target;
}
bool IsMoveToHost(const HloInstruction* instruction) {
  return IsCustomCall(instruction, memory_annotations::kMoveToHostCustomCallTarget);
}
bool IsMoveToDevice(const HloInstruction* instruction) {
  return IsCustomCall(instruction, memory_annotations::kMoveToDeviceCustomCallTarget);
}

// Sets `memory_space` on every array in `shape` (the shape itself when it is
// an array), giving arrays without a layout the default one first. Returns
// whether anything changed.
bool SetMemorySpace(Shape* shape, int64_t memory_space) {
  bool changed = false;
  ShapeUtil::ForEachMutableSubshape(shape, [&](Shape* subshape, const ShapeIndex&) {
    if (!subshape->IsArray()) return;
    if (!subshape->has_layout()) subshape->set_layout(ShapeUtil::LayoutOrDefault(*subshape));
    if (subshape->layout().memory_space() != memory_space) {
      subshape->mutable_layout()->set_memory_space(memory_space);
      changed = true;
    }
  });
  return changed;
}

bool SetMemorySpaceAt(HloInstruction* instruction, const ShapeIndex& index, int64_t memory_space) {
  if (!ShapeUtil::IndexIsValid(instruction->shape(), index)) return false;
  return SetMemorySpace(ShapeUtil::GetMutableSubshape(instruction->mutable_shape(), index),
                        memory_space);
}

// Bitcasts, copies and reshapes that are bitcasts: what may sit between a
// MoveToHost and its dynamic-update-slice, or a dynamic-slice and its
// MoveToDevice, without being an offload of their own.
bool IsBitcastLike(const HloInstruction* instruction) {
  if (instruction->opcode() == HloOpcode::kReshape) {
    return ReshapeIsBitcast(instruction->operand(0)->shape(), instruction->shape());
  }
  return instruction->opcode() == HloOpcode::kBitcast || instruction->opcode() == HloOpcode::kCopy;
}

void MarkAsHostCompute(HloInstruction* instruction) {
  spdlog::warn(
      "host-offloader: instruction \"{}\" computes on data in host memory; marking it as host "
      "compute, which is likely slow",
      instruction->name());
  FrontendAttributes* attributes = instruction->mutable_frontend_attributes();
  if (!attributes->Contains(memory_annotations::kXlaComputeTypeAttr)) {
    attributes->Set(memory_annotations::kXlaComputeTypeAttr,
                    memory_annotations::kXlaComputeTypeHost);
  }
}

ShapeIndex Prepend(std::initializer_list<int64_t> front, const ShapeIndex& rest) {
  ShapeIndex index(front);
  index.insert(index.end(), rest.begin(), rest.end());
  return index;
}

// Whether `value` is (a get-tuple-element or bitcast chain of) a parameter of
// its computation, i.e. it shares a buffer with the computation's input.
bool UsesParameterBuffer(const HloInstruction* value) {
  while (value->opcode() == HloOpcode::kGetTupleElement || value->opcode() == HloOpcode::kBitcast) {
    value = value->operand(0);
  }
  return value->opcode() == HloOpcode::kParameter;
}

// The (user, operand number) slots through which the buffer at `position`
// reads `producer`, as GetPredecessors followed them: a tuple's element
// index.front(), a parameter's operand at each call site, otherwise operand 0.
std::vector<std::pair<HloInstruction*, int64_t>> OperandSlotsOnPath(
    const host_offload_utils::InstructionAndShapeIndex& position, const HloInstruction* producer) {
  std::vector<std::pair<HloInstruction*, int64_t>> slots;
  HloInstruction* instruction = position.instruction;
  if (instruction->opcode() == HloOpcode::kTuple) {
    slots.emplace_back(instruction, position.shape_index.front());
  } else if (instruction->opcode() == HloOpcode::kParameter) {
    for (HloInstruction* caller : instruction->parent()->caller_instructions()) {
      for (int64_t operand_number : caller->OperandIndices(producer)) {
        slots.emplace_back(caller, operand_number);
      }
    }
  } else if (instruction->operand_count() > 0 && instruction->operand(0) == producer) {
    slots.emplace_back(instruction, 0);
  }
  return slots;
}

}  // namespace

const PassOptionBinding<HostOffloader::Options>& HostOffloader::Binding() {
  static const PassOptionBinding<Options> binding = PassOptionBinding<Options>().Option(
      "update-entry-layout", &Options::update_entry_layout, true,
      "Set S(5) in entry_computation_layout where host data reaches an entry output or "
      "parameter (false: such a layout must already say S(5), as in XLA)");
  return binding;
}

absl::StatusOr<std::unique_ptr<HostOffloader>> HostOffloader::Create(
    const PassOptions& pass_options) {
  HMO_ASSIGN_OR_RETURN(const Options options, Binding().Read(pass_options));
  return std::make_unique<HostOffloader>(options.update_entry_layout);
}

absl::Status HostOffloader::MarkEntryOutputAsHost(HloModule& module, const ShapeIndex& index,
                                                  const HloInstruction* start) {
  if (!module.has_explicit_entry_computation_layout()) return absl::OkStatus();
  Shape* result = module.mutable_entry_computation_layout()->mutable_result_shape();
  if (!ShapeUtil::IndexIsValid(*result, index)) {
    return absl::InternalError(absl::StrFormat(
        "host-offloader: output index %s is not in entry_computation_layout's result %s",
        ShapeIndexToString(index), result->ToString()));
  }
  Shape* output = ShapeUtil::GetMutableSubshape(result, index);
  if (output->IsArray() && output->memory_space() == Layout::kHostMemorySpace) {
    return absl::OkStatus();
  }
  if (!update_entry_layout_) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Tensor which is moved to host (starting from %s) is returned from the entry "
        "computation but the layout for this output (index %s) is not set to host memory",
        start->name(), ShapeIndexToString(index)));
  }
  spdlog::info("host-offloader: entry output {} now lives in host memory (S(5))",
               ShapeIndexToString(index));
  SetMemorySpace(output, Layout::kHostMemorySpace);
  return absl::OkStatus();
}

absl::Status HostOffloader::MarkEntryParameterAsHost(HloModule& module, const Position& parameter,
                                                     const HloInstruction* dus) {
  if (!update_entry_layout_) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "DynamicUpdateSlice \"%s\" writes host data into entry parameter \"%s\" (index %s), "
        "whose layout is not set to host memory",
        dus->name(), parameter.instruction->name(), ShapeIndexToString(parameter.shape_index)));
  }
  if (!module.has_explicit_entry_computation_layout()) return absl::OkStatus();
  std::vector<Shape>* parameters = module.mutable_entry_computation_layout()->mutable_parameter_shapes();
  const int64_t number = parameter.instruction->parameter_number();
  if (number >= static_cast<int64_t>(parameters->size()) ||
      !ShapeUtil::IndexIsValid((*parameters)[number], parameter.shape_index)) {
    return absl::InternalError(absl::StrFormat(
        "host-offloader: parameter %d index %s is not in entry_computation_layout", number,
        ShapeIndexToString(parameter.shape_index)));
  }
  spdlog::info("host-offloader: entry parameter {} index {} now lives in host memory (S(5))",
               number, ShapeIndexToString(parameter.shape_index));
  SetMemorySpace(ShapeUtil::GetMutableSubshape(&(*parameters)[number], parameter.shape_index),
                 Layout::kHostMemorySpace);
  return absl::OkStatus();
}

absl::StatusOr<bool> HostOffloader::SliceLeadsToMoveToDevice(HloInstruction* slice) {
  std::deque<Position> queue;
  HMO_ASSIGN_OR_RETURN(std::vector<Position> successors, GetSuccessors(Position(slice)));
  queue.insert(queue.end(), successors.begin(), successors.end());
  while (!queue.empty()) {
    Position position = std::move(queue.front());
    queue.pop_front();
    if (IsMoveToDevice(position.instruction)) continue;
    if (!IsBitcastLike(position.instruction)) {
      spdlog::warn(
          "host-offloader: {} \"{}\" reads a tensor in host memory but does not move it back to "
          "the device; it will be host compute",
          HloOpcodeString(slice->opcode()), slice->name());
      return false;
    }
    HMO_ASSIGN_OR_RETURN(successors, GetSuccessors(position));
    queue.insert(queue.end(), successors.begin(), successors.end());
  }
  return true;
}

absl::StatusOr<bool> HostOffloader::WalkDownHostMemoryOffloadPaths(const Position& start,
                                                                   bool insert_copy_before) {
  HloModule& module = *start.instruction->GetModule();
  bool changed = false;
  std::vector<HloInstruction*> move_to_hosts_to_remove;
  std::vector<HloInstruction*> slices_to_dynamify;
  std::vector<HloInstruction*> move_to_devices;
  std::vector<Position> host_positions;
  std::vector<HloInstruction*> dynamic_update_slices;
  absl::flat_hash_set<Position> visited;
  std::deque<Position> queue = {start};
  while (!queue.empty()) {
    Position position = std::move(queue.front());
    queue.pop_front();
    if (!visited.insert(position).second) continue;
    HloInstruction* instruction = position.instruction;
    bool already_saved = false;
    bool host_compute = false;
    if (IsMoveToHost(instruction)) {
      // A no-op on data already headed for the host.
      visited_move_to_hosts_.insert(instruction);
      move_to_hosts_to_remove.push_back(instruction);
    } else if (IsMoveToDevice(instruction)) {
      // The end of this path.
      move_to_devices.push_back(instruction);
      continue;
    } else if (instruction->opcode() == HloOpcode::kDynamicUpdateSlice) {
      if (instruction == start.instruction) {
        dynamic_update_slices.push_back(instruction);
      } else {
        // Its buffer is already in host memory: no AllocateBuffer for it.
        dynamic_update_slices_already_allocated_.insert(instruction);
      }
    } else if (IsValidDuringPureMemoryOffload(instruction)) {
      if (instruction->opcode() == HloOpcode::kAsyncStart) {
        // The operand's memory space was set when visiting the parameter.
        already_saved = true;
      } else if (instruction->opcode() == HloOpcode::kAsyncDone) {
        // async-start's shape is ((operands...), outputs, context).
        host_positions.emplace_back(instruction->mutable_operand(0),
                                    Prepend({1}, position.shape_index));
      } else if (instruction->opcode() == HloOpcode::kParameter) {
        for (HloInstruction* caller : instruction->parent()->caller_instructions()) {
          if (caller->opcode() == HloOpcode::kAsyncStart) {
            host_positions.emplace_back(
                caller, Prepend({0, instruction->parameter_number()}, position.shape_index));
          }
        }
      }
    } else if (instruction->opcode() == HloOpcode::kDynamicSlice ||
               instruction->opcode() == HloOpcode::kSlice) {
      HMO_ASSIGN_OR_RETURN(bool end_of_offload, SliceLeadsToMoveToDevice(instruction));
      if (end_of_offload) {
        if (instruction->opcode() == HloOpcode::kSlice) slices_to_dynamify.push_back(instruction);
        continue;
      }
      host_compute = true;
    } else {
      host_compute = true;
    }
    if (host_compute) MarkAsHostCompute(instruction);
    if (!already_saved) host_positions.push_back(position);

    if (instruction->IsRoot() && instruction->parent() == module.entry_computation()) {
      HMO_RETURN_IF_ERROR(MarkEntryOutputAsHost(module, position.shape_index, start.instruction));
      continue;
    }
    HMO_ASSIGN_OR_RETURN(std::vector<Position> successors, GetSuccessors(position));
    queue.insert(queue.end(), successors.begin(), successors.end());
  }

  for (const Position& position : host_positions) {
    changed |= SetMemorySpaceAt(position.instruction, position.shape_index,
                                Layout::kHostMemorySpace);
  }
  for (HloInstruction* dus : dynamic_update_slices) {
    HMO_RETURN_IF_ERROR(CreateAllocateBufferForDynamicUpdateSlice(dus));
    changed = true;
  }
  if (insert_copy_before) {
    HMO_ASSIGN_OR_RETURN(std::vector<Position> predecessors, GetPredecessors(start));
    if (predecessors.size() != 1) {
      return absl::InternalError(absl::StrFormat(
          "host-offloader: expected one predecessor of %s to copy to host, found %d",
          start.ToString(), predecessors.size()));
    }
    HMO_ASSIGN_OR_RETURN(bool inserted, InsertCopyBetween(predecessors.front(), start));
    changed |= inserted;
  }
  for (HloInstruction* move_to_device : move_to_devices) {
    if (move_to_device->IsDead()) continue;  // already given its copy
    HloInstruction* data = move_to_device->mutable_operand(0);
    Shape device_shape = data->shape();
    SetMemorySpace(&device_shape, Layout::kDefaultMemorySpace);
    HloInstruction* copy_to_device =
        data->parent()->AddInstruction(HloInstruction::CreateCopy(device_shape, data));
    HMO_RETURN_IF_ERROR(move_to_device->ReplaceAllUsesWith(copy_to_device));
    changed = true;
  }
  for (HloInstruction* move_to_host : move_to_hosts_to_remove) {
    HMO_RETURN_IF_ERROR(move_to_host->ReplaceAllUsesWith(move_to_host->mutable_operand(0)));
    HMO_RETURN_IF_ERROR(move_to_host->parent()->RemoveInstruction(move_to_host));
    changed = true;
  }
  for (HloInstruction* slice : slices_to_dynamify) {
    HMO_RETURN_IF_ERROR(DynamifySlice(slice));
    changed = true;
  }
  return changed;
}

absl::Status HostOffloader::CreateAllocateBufferForDynamicUpdateSlice(HloInstruction* dus) {
  if (dynamic_update_slices_already_allocated_.contains(dus)) return absl::OkStatus();
  HloModule& module = *dus->GetModule();
  absl::flat_hash_set<Position> visited;
  std::deque<Position> queue = {Position(dus)};
  bool found_source = false;
  // Whether everything visited so far only forwards the buffer; an entry
  // parameter is an acceptable source only then.
  bool only_forwarding = true;
  while (!queue.empty()) {
    Position position = std::move(queue.front());
    queue.pop_front();
    if (!visited.insert(position).second) continue;
    HloInstruction* instruction = position.instruction;
    SetMemorySpaceAt(instruction, position.shape_index, Layout::kHostMemorySpace);
    if (instruction->opcode() != HloOpcode::kDynamicUpdateSlice &&
        !IsValidDuringPureMemoryOffload(instruction) && !IsBitcastLike(instruction)) {
      only_forwarding = false;
    }
    if (instruction->opcode() == HloOpcode::kParameter) {
      HloComputation* computation = instruction->parent();
      if (computation == module.entry_computation()) {
        if (only_forwarding) {
          HMO_RETURN_IF_ERROR(MarkEntryParameterAsHost(module, position, dus));
          found_source = true;
        }
        continue;
      }
      for (HloInstruction* caller : computation->caller_instructions()) {
        if (caller->opcode() != HloOpcode::kWhile || caller->while_body() != computation) continue;
        // The condition sees the same buffer: give its parameter S(5) too,
        // and check that the condition only forwards it.
        HloInstruction* condition_parameter = caller->while_condition()->parameter_instruction(0);
        std::deque<Position> nested = {Position(condition_parameter, position.shape_index)};
        absl::flat_hash_set<Position> nested_visited;
        while (!nested.empty()) {
          Position current = std::move(nested.front());
          nested.pop_front();
          if (!nested_visited.insert(current).second) continue;
          if (!IsValidDuringPureMemoryOffload(current.instruction)) {
            return absl::InvalidArgumentError(absl::StrFormat(
                "Tensor which is moved to host is used by an invalid instruction (\"%s\") "
                "during while condition body.",
                current.instruction->name()));
          }
          SetMemorySpaceAt(current.instruction, current.shape_index, Layout::kHostMemorySpace);
          HMO_ASSIGN_OR_RETURN(std::vector<Position> successors, GetSuccessors(current));
          for (Position& successor : successors) {
            // Stay inside the condition: its root feeds the while's predicate.
            if (successor.instruction->parent() == caller->while_condition()) {
              nested.push_back(std::move(successor));
            }
          }
        }
      }
    } else if (instruction->opcode() == HloOpcode::kDynamicUpdateSlice) {
      // The AllocateBuffer made below serves every DUS on the way up.
      dynamic_update_slices_already_allocated_.insert(instruction);
    } else if (IsCustomCall(instruction, memory_annotations::kAllocateBufferCustomCallTarget)) {
      found_source = true;
      continue;
    }
    HMO_ASSIGN_OR_RETURN(std::vector<Position> predecessors, GetPredecessors(position));
    for (Position& predecessor : predecessors) {
      HloInstruction* producer = predecessor.instruction;
      if (producer->opcode() != HloOpcode::kBroadcast) {
        queue.push_back(std::move(predecessor));
        continue;
      }
      found_source = true;
      // Only the operand slot on this path reads the new buffer: a broadcast
      // that also feeds other slots (e.g. two loop-carried buffers) keeps
      // them, and they get their own host buffer if they go to the host
      // too (what XLA's HostOffloadLegalize ensures by duplicating such
      // broadcasts before the offloader runs).
      Shape host_shape = producer->shape();
      SetMemorySpace(&host_shape, Layout::kHostMemorySpace);
      // XLA allocates the host buffer uninitialized, trusting the loop to
      // write it all; that holds only for a loop proven to (a scan whose
      // trip count covers the rows). Elsewhere the host buffer is a copy of
      // the broadcast, so rows no iteration writes read its value.
      HloInstruction* host_buffer =
          LoopOverwritesEveryElement(*dus, *producer)
              ? producer->parent()->AddInstruction(HloInstruction::CreateCustomCall(
                    host_shape, {}, memory_annotations::kAllocateBufferCustomCallTarget))
              : producer->parent()->AddInstruction(
                    HloInstruction::CreateCopy(host_shape, producer));
      for (const auto& [user, operand_number] : OperandSlotsOnPath(position, producer)) {
        HMO_RETURN_IF_ERROR(user->ReplaceOperandWith(operand_number, host_buffer));
      }
      if (producer->IsDead()) {
        HMO_RETURN_IF_ERROR(producer->parent()->RemoveInstruction(producer));
      }
    }
  }
  if (!found_source) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "DynamicUpdateSlice \"%s\"'s first operand is not the result of a broadcast.",
        dus->name()));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> HostOffloader::InsertCopyBetween(const Position& before,
                                                      const Position& after) {
  // Copies go before `after`, or, when it is a parameter, before the operand
  // of each call site that passes `before`.
  std::vector<std::pair<HloInstruction*, std::vector<int64_t>>> targets;
  if (after.instruction->opcode() == HloOpcode::kParameter) {
    for (HloInstruction* caller : after.instruction->parent()->caller_instructions()) {
      targets.emplace_back(caller, caller->OperandIndices(before.instruction));
    }
  } else if (after.instruction->opcode() == HloOpcode::kTuple) {
    targets.emplace_back(after.instruction, std::vector<int64_t>{after.shape_index.front()});
  } else {
    targets.emplace_back(after.instruction, after.instruction->OperandIndices(before.instruction));
  }
  bool changed = false;
  for (const auto& [target, operand_numbers] : targets) {
    Position key(target, after.shape_index);
    if (operand_numbers.empty() || already_inserted_copy_before_.contains(key)) continue;
    HloInstruction* data = before.instruction;
    HloInstruction*& copy_to_host = copies_created_after_[data];
    if (copy_to_host == nullptr) {
      Shape host_shape = data->shape();
      if (ShapeUtil::IndexIsValid(host_shape, before.shape_index)) {
        SetMemorySpace(ShapeUtil::GetMutableSubshape(&host_shape, before.shape_index),
                       Layout::kHostMemorySpace);
      }
      copy_to_host = data->parent()->AddInstruction(HloInstruction::CreateCopy(host_shape, data));
    }
    for (int64_t operand_number : operand_numbers) {
      HMO_RETURN_IF_ERROR(target->ReplaceOperandWith(operand_number, copy_to_host));
    }
    already_inserted_copy_before_.insert(key);
    changed = true;
  }
  return changed;
}

absl::Status HostOffloader::DynamifySlice(HloInstruction* slice) {
  HloComputation* computation = slice->parent();
  std::vector<HloInstruction*> starts;
  std::vector<int64_t> sizes;
  for (size_t d = 0; d < slice->slice_starts().size(); ++d) {
    starts.push_back(computation->AddInstruction(
        HloInstruction::CreateConstant(Literal::CreateR0FromInt(
            PrimitiveType::S32, slice->slice_starts(static_cast<int64_t>(d))))));
    sizes.push_back(slice->slice_limits(static_cast<int64_t>(d)) -
                    slice->slice_starts(static_cast<int64_t>(d)));
  }
  HloInstruction* dynamic_slice = computation->AddInstruction(HloInstruction::CreateDynamicSlice(
      slice->shape(), slice->mutable_operand(0), starts, std::move(sizes)));
  HMO_RETURN_IF_ERROR(slice->ReplaceAllUsesWith(dynamic_slice));
  return computation->RemoveInstruction(slice);
}

absl::StatusOr<std::vector<HostOffloader::Position>> HostOffloader::GetStartingPositions(
    HloInstruction* move_to_host) {
  // Each path from the annotation starts at the first dynamic-update-slice
  // (the data is written into a host buffer) or at the first instruction
  // that is not bitcast-like (the data itself moves to the host).
  std::vector<Position> result;
  HMO_ASSIGN_OR_RETURN(std::vector<Position> successors, GetSuccessors(Position(move_to_host)));
  std::deque<Position> queue(successors.begin(), successors.end());
  while (!queue.empty()) {
    Position position = std::move(queue.front());
    queue.pop_front();
    HloInstruction* instruction = position.instruction;
    if (instruction->opcode() == HloOpcode::kDynamicUpdateSlice || !IsBitcastLike(instruction)) {
      result.push_back(std::move(position));
      continue;
    }
    HMO_ASSIGN_OR_RETURN(successors, GetSuccessors(position));
    queue.insert(queue.end(), successors.begin(), successors.end());
  }
  return result;
}

absl::StatusOr<bool> HostOffloader::HandleMoveToHost(HloInstruction* move_to_host) {
  if (visited_move_to_hosts_.contains(move_to_host)) return false;
  if (move_to_host->operand_count() != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "custom-call %s (MoveToHost) must have exactly one operand, but has %d",
        move_to_host->name(), move_to_host->operand_count()));
  }
  HloModule& module = *move_to_host->GetModule();
  HMO_ASSIGN_OR_RETURN(std::vector<Position> starts, GetStartingPositions(move_to_host));
  if (starts.empty() && move_to_host == module.entry_computation()->root_instruction()) {
    // The entry returns the data: copy it to the host as the new root.
    HloInstruction* data = move_to_host->mutable_operand(0);
    Shape host_shape = data->shape();
    SetMemorySpace(&host_shape, Layout::kHostMemorySpace);
    HloInstruction* copy_to_host =
        data->parent()->AddInstruction(HloInstruction::CreateCopy(host_shape, data));
    HMO_RETURN_IF_ERROR(move_to_host->ReplaceAllUsesWith(copy_to_host));
    HMO_RETURN_IF_ERROR(MarkEntryOutputAsHost(module, {}, move_to_host));
  }
  for (const Position& start : starts) {
    const bool insert_copy_before = start.instruction->opcode() != HloOpcode::kDynamicUpdateSlice;
    HMO_RETURN_IF_ERROR(WalkDownHostMemoryOffloadPaths(start, insert_copy_before).status());
  }
  visited_move_to_hosts_.insert(move_to_host);
  HMO_RETURN_IF_ERROR(move_to_host->ReplaceAllUsesWith(move_to_host->mutable_operand(0)));
  HMO_RETURN_IF_ERROR(move_to_host->parent()->RemoveInstruction(move_to_host));
  return true;
}

absl::StatusOr<bool> HostOffloader::ProcessNextMoveToHost(HloComputation* computation) {
  for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    if (IsMoveToHost(instruction)) {
      HMO_ASSIGN_OR_RETURN(bool removed, HandleMoveToHost(instruction));
      if (removed) return true;
    }
    for (HloComputation* callee : instruction->called_computations()) {
      HMO_ASSIGN_OR_RETURN(bool removed, ProcessNextMoveToHost(callee));
      if (removed) return true;
    }
  }
  return false;
}

absl::StatusOr<bool> HostOffloader::HandleMoveToDevice(HloInstruction* move_to_device) {
  if (move_to_device->operand_count() != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "custom-call %s (MoveToDevice) must have exactly one operand, but has %d",
        move_to_device->name(), move_to_device->operand_count()));
  }
  HMO_RETURN_IF_ERROR(move_to_device->ReplaceAllUsesWith(move_to_device->mutable_operand(0)));
  HMO_RETURN_IF_ERROR(move_to_device->parent()->RemoveInstruction(move_to_device));
  return true;
}

absl::StatusOr<bool> HostOffloader::HandleInputStreaming(HloModule& module) {
  bool changed = false;
  HloComputation* entry = module.entry_computation();
  const ComputationLayout layout = module.entry_computation_layout();
  for (int64_t i = 0; i < layout.parameter_count() && i < entry->num_parameters(); ++i) {
    std::vector<ShapeIndex> host_indices;
    ShapeUtil::ForEachSubshape(layout.parameter_shape(i), [&](const Shape& subshape,
                                                              const ShapeIndex& index) {
      if (subshape.IsArray() && subshape.memory_space() == Layout::kHostMemorySpace) {
        host_indices.push_back(index);
      }
    });
    for (const ShapeIndex& index : host_indices) {
      HMO_ASSIGN_OR_RETURN(bool walked,
                           WalkDownHostMemoryOffloadPaths(
                               Position(entry->parameter_instruction(i), index),
                               /*insert_copy_before=*/false));
      changed |= walked;
    }
  }
  return changed;
}

absl::StatusOr<bool> HostOffloader::ApplySchedulingFix(HloModule& module) {
  // A host dynamic-update-slice in a loop body whose update shares a buffer
  // with the body's parameter gets a copy of the update, so that the loop's
  // buffer aliasing does not constrain the schedule (XLA does the same).
  bool changed = false;
  for (HloComputation* computation : module.MakeComputationPostOrder()) {
    if (computation == module.entry_computation()) continue;
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kDynamicUpdateSlice ||
          instruction->shape().memory_space() != Layout::kHostMemorySpace) {
        continue;
      }
      HloInstruction* update = instruction->mutable_operand(1);
      if (!UsesParameterBuffer(update)) continue;
      HloInstruction* copy =
          computation->AddInstruction(HloInstruction::CreateCopy(update->shape(), update));
      HMO_RETURN_IF_ERROR(instruction->ReplaceOperandWith(1, copy));
      changed = true;
    }
  }
  return changed;
}

namespace {

// An entry output the offloader moved to host memory can no longer share a
// buffer with a parameter in device memory (or the other way round): a
// may-alias is dropped (donation is an offer), a must-alias is an error.
absl::StatusOr<bool> DropAliasesAcrossMemorySpaces(HloModule& module) {
  const HloComputation& entry = *module.entry_computation();
  const Shape& result = entry.root_instruction()->shape();
  std::vector<ShapeIndex> dropped;
  for (const auto& [output_index, alias] : module.input_output_alias_config().aliases()) {
    if (alias.parameter_number >= entry.num_parameters() ||
        !ShapeUtil::IndexIsValid(result, output_index)) {
      continue;
    }
    const Shape& parameter = entry.parameter_instruction(alias.parameter_number)->shape();
    if (!ShapeUtil::IndexIsValid(parameter, alias.parameter_index)) continue;
    const int64_t output_space = ShapeUtil::GetSubshape(result, output_index).memory_space();
    const int64_t parameter_space =
        ShapeUtil::GetSubshape(parameter, alias.parameter_index).memory_space();
    if (output_space == parameter_space) continue;
    if (alias.must_alias()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "output %s moves to memory space %d but must alias parameter %d %s in memory space %d",
          ShapeIndexToString(output_index), output_space, alias.parameter_number,
          ShapeIndexToString(alias.parameter_index), parameter_space));
    }
    dropped.push_back(output_index);
  }
  for (const ShapeIndex& output_index : dropped) {
    module.input_output_alias_config().RemoveAlias(output_index);
  }
  return !dropped.empty();
}

}  // namespace

absl::StatusOr<bool> HostOffloader::Run(HloModule& module, PassContext& /*context*/) {
  HMO_ASSIGN_OR_RETURN(bool changed, HandleInputStreaming(module));
  // Handling a MoveToHost changes the graph, so restart from the entry after
  // each one; computations are visited in execution order.
  while (true) {
    HMO_ASSIGN_OR_RETURN(bool handled, ProcessNextMoveToHost(module.entry_computation()));
    if (!handled) break;
    changed = true;
  }
  for (HloComputation* computation : module.MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (!IsMoveToDevice(instruction)) continue;
      HMO_ASSIGN_OR_RETURN(bool removed, HandleMoveToDevice(instruction));
      changed |= removed;
    }
  }
  HMO_ASSIGN_OR_RETURN(bool fixed, ApplySchedulingFix(module));
  changed |= fixed;
  HMO_ASSIGN_OR_RETURN(bool unaliased, DropAliasesAcrossMemorySpaces(module));
  changed |= unaliased;
  // New copies and AllocateBuffers join the schedule after their operands.
  if (changed && module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  return changed;
}

}  // namespace hmo
