#include "memory_space_propagation.h"

#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/layout.h"

namespace hmo {
namespace {

// What is propagated: a memory space and the first split config of a leaf.
struct MemoryPlacement {
  int64_t memory_space = Layout::kDefaultMemorySpace;
  std::optional<SplitConfig> split_config;

  static MemoryPlacement Of(const Shape& shape) {
    MemoryPlacement placement;
    if (shape.IsArray() && shape.has_layout()) {
      placement.memory_space = shape.layout().memory_space();
      if (!shape.layout().split_configs().empty()) {
        placement.split_config = shape.layout().split_configs().front();
      }
    }
    return placement;
  }
  bool operator==(const MemoryPlacement&) const = default;
};

class Propagator {
 public:
  explicit Propagator(const HloDataflowAnalysis& analysis) : analysis_(analysis) {}

  // Propagates `source` into the values at (instruction, index), visiting
  // each value at most once. Returns whether a layout changed.
  bool Propagate(const ShapeIndex& index, const HloInstruction* instruction,
                 const MemoryPlacement& source) {
    bool modified = false;
    if (!ShapeUtil::IndexIsValid(instruction->shape(), index)) return false;
    for (const HloValue* value : analysis_.GetValueSet(instruction, index).values()) {
      modified |= PropagateValue(*value, source);
    }
    return modified;
  }

  void ResetVisited() { visited_.clear(); }

 private:
  bool PropagateValue(const HloValue& value, const MemoryPlacement& source) {
    if (!visited_.insert(&value).second) return false;
    bool modified = false;
    for (const HloPosition& position : value.positions()) {
      HloInstruction* instruction = position.instruction;
      modified |= SetPlacement(instruction, position.index, source);
      if (instruction->opcode() == HloOpcode::kDynamicUpdateSlice) {
        modified |= Propagate(position.index, instruction->operand(0), source);
      }
      // A nested fusion's output: into its fused root.
      if (instruction->opcode() == HloOpcode::kFusion) {
        modified |= Propagate(position.index, instruction->fused_expression_root(), source);
      }
      // Inside a nested fused computation: up to the calling fusion.
      for (HloInstruction* caller : instruction->parent()->caller_instructions()) {
        if (caller->opcode() != HloOpcode::kFusion ||
            !caller->parent()->IsFusionComputation()) {
          continue;
        }
        if (instruction == caller->fused_expression_root()) {
          modified |= Propagate(position.index, caller, source);
        }
        if (instruction->opcode() == HloOpcode::kParameter &&
            instruction->parameter_number() < caller->operand_count()) {
          modified |=
              Propagate(position.index, caller->operand(instruction->parameter_number()), source);
        }
      }
    }
    for (const HloUse& use : value.GetUses()) {
      if (use.instruction->opcode() != HloOpcode::kFusion) continue;
      modified |= Propagate(use.operand_index, use.instruction->fused_parameter(use.operand_number),
                            source);
    }
    return modified;
  }

  // Gives the array at (instruction, index) the memory space and split
  // config of `source`. Returns whether the layout changed.
  static bool SetPlacement(HloInstruction* instruction, const ShapeIndex& index,
                           const MemoryPlacement& source) {
    Shape* shape = ShapeUtil::GetMutableSubshape(instruction->mutable_shape(), index);
    if (!shape->IsArray() || MemoryPlacement::Of(*shape) == source) return false;
    if (!shape->has_layout()) shape->set_layout(ShapeUtil::LayoutOrDefault(*shape));
    Layout* layout = shape->mutable_layout();
    layout->set_memory_space(source.memory_space);
    layout->clear_split_configs();
    if (source.split_config.has_value()) layout->add_split_config(*source.split_config);
    return true;
  }

  const HloDataflowAnalysis& analysis_;
  absl::flat_hash_set<const HloValue*> visited_;
};

// Propagates every leaf of `source_shape` into (target, leaf index), each
// leaf with its own visited set.
bool PropagateLeaves(Propagator& propagator, const Shape& source_shape,
                     const HloInstruction* target) {
  bool modified = false;
  // Copy the leaves first: propagation may rewrite the source's own shape.
  for (const ShapeUtil::IndexedShape& leaf : ShapeUtil::GetLeafShapes(source_shape)) {
    propagator.ResetVisited();
    modified |= propagator.Propagate(leaf.index, target, MemoryPlacement::Of(leaf.shape));
  }
  return modified;
}

}  // namespace

const PassOptionBinding<MemorySpacePropagation::Options>& MemorySpacePropagation::Binding() {
  static const PassOptionBinding<Options> binding = PassOptionBinding<Options>().Option(
      "computations", &Options::computations, {},
      "Run only the per-computation entry point on these computations, seeded from their own "
      "parameters and root (default: every fusion of the module)");
  return binding;
}

absl::StatusOr<std::unique_ptr<MemorySpacePropagation>> MemorySpacePropagation::Create(
    const PassOptions& pass_options) {
  HMO_ASSIGN_OR_RETURN(Options options, Binding().Read(pass_options));
  return std::make_unique<MemorySpacePropagation>(std::move(options.computations));
}

bool MemorySpacePropagation::RunOnComputation(HloComputation* computation,
                                              const HloDataflowAnalysis& analysis) {
  Propagator propagator(analysis);
  bool modified = false;
  for (HloInstruction* parameter : computation->parameter_instructions()) {
    modified |= PropagateLeaves(propagator, parameter->shape(), parameter);
  }
  HloInstruction* root = computation->root_instruction();
  modified |= PropagateLeaves(propagator, root->shape(), root);
  return modified;
}

absl::StatusOr<bool> MemorySpacePropagation::Run(HloModule& module, PassContext& /*context*/) {
  HloDataflowAnalysis::Options options;
  options.ssa_form = false;
  options.bitcast_defines_value = true;
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloDataflowAnalysis> analysis,
                       HloDataflowAnalysis::Run(module, options));

  bool modified = false;
  if (!computations_.empty()) {
    for (const std::string& name : computations_) {
      HloComputation* computation = module.GetComputationWithName(name);
      if (computation == nullptr) {
        return absl::NotFoundError(absl::StrFormat(
            "memory-space-propagation: no computation named '%s' in module %s", name,
            module.name()));
      }
      modified |= RunOnComputation(computation, *analysis);
    }
    return modified;
  }

  Propagator propagator(*analysis);
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kFusion) continue;
      for (int64_t i = 0; i < instruction->operand_count(); ++i) {
        modified |= PropagateLeaves(propagator, instruction->operand(i)->shape(),
                                    instruction->fused_parameter(i));
      }
      modified |= PropagateLeaves(propagator, instruction->shape(),
                                  instruction->fused_expression_root());
    }
  }
  return modified;
}

}  // namespace hmo
