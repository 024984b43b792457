#include "optimize_input_output_buffer_alias.h"

#include <algorithm>
#include <map>

#include "hmo/base/status_macros.h"
#include "hmo/ir/computation_layout.h"
#include "hmo/ir/donation_orderings.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {
namespace {

struct Donor {
  int64_t parameter_number;
  ShapeIndex index;
  int64_t size;
};

struct Donee {
  ShapeIndex index;
  int64_t size;
};

int64_t BufferSize(const Shape& shape) { return ShapeUtil::ByteSizeOf(shape); }

}  // namespace

const PassOptionBinding<OptimizeInputOutputBufferAlias::Options>&
OptimizeInputOutputBufferAlias::Binding() {
  static const PassOptionBinding<Options> binding = PassOptionBinding<Options>().Option(
      "registered-buffer-donor-only", &Options::registered_buffer_donor_only, false,
      "Only use parameters listed in buffer_donor as donors (else every parameter leaf)");
  return binding;
}

absl::StatusOr<std::unique_ptr<OptimizeInputOutputBufferAlias>>
OptimizeInputOutputBufferAlias::Create(const PassOptions& pass_options) {
  HMO_ASSIGN_OR_RETURN(const Options options, Binding().Read(pass_options));
  return std::make_unique<OptimizeInputOutputBufferAlias>(options.registered_buffer_donor_only);
}

absl::StatusOr<bool> OptimizeInputOutputBufferAlias::Build(
    const std::vector<Shape>& input_shapes, const Shape& output_shape,
    HloInputOutputAliasConfig& alias_config, HloBufferDonorConfig& buffer_donor_config,
    const std::vector<Shape>* parameter_shapes, const Shape* root_shape) const {
  // Whether `other` (when given) places leaf `index` where `leaf` is.
  auto placed_alike = [](const Shape* other, const Shape& leaf, const ShapeIndex& index) {
    return other == nullptr ||
           (ShapeUtil::IndexIsValid(*other, index) &&
            ShapeUtil::GetSubshape(*other, index).memory_space() == leaf.memory_space());
  };
  // Aliasing dynamic outputs could disagree on the size at run time.
  if (!output_shape.is_static()) return false;

  // Ordered by memory space so the result does not depend on hashing.
  std::map<int64_t, std::vector<Donor>> donors;
  for (int64_t parameter = 0; parameter < static_cast<int64_t>(input_shapes.size()); ++parameter) {
    ShapeUtil::ForEachSubshape(input_shapes[parameter], [&](const Shape& subshape,
                                                            const ShapeIndex& index) {
      if (!subshape.IsArray() || !subshape.is_static()) return;
      if (alias_config.ParameterHasAlias(parameter, index)) return;
      if (parameter_shapes != nullptr &&
          (parameter >= static_cast<int64_t>(parameter_shapes->size()) ||
           !placed_alike(&(*parameter_shapes)[parameter], subshape, index))) {
        return;
      }
      if (registered_buffer_donor_only_ &&
          !buffer_donor_config.ParameterIsBufferDonor(parameter, index)) {
        return;
      }
      donors[subshape.memory_space()].push_back({parameter, index, BufferSize(subshape)});
    });
  }

  std::map<int64_t, std::vector<Donee>> donees;
  ShapeUtil::ForEachSubshape(output_shape, [&](const Shape& subshape, const ShapeIndex& index) {
    if (!subshape.IsArray()) return;
    if (alias_config.OutputHasAlias(index)) return;
    if (!placed_alike(root_shape, subshape, index)) return;
    donees[subshape.memory_space()].push_back({index, BufferSize(subshape)});
  });

  bool changed = false;
  for (auto& [memory_space, donor_list] : donors) {
    auto it = donees.find(memory_space);
    if (it == donees.end()) continue;
    std::vector<Donee>& donee_list = it->second;
    std::stable_sort(donor_list.begin(), donor_list.end(),
                     [](const Donor& a, const Donor& b) { return a.size > b.size; });
    std::stable_sort(donee_list.begin(), donee_list.end(),
                     [](const Donee& a, const Donee& b) { return a.size > b.size; });
    size_t d = 0;
    size_t e = 0;
    while (d < donor_list.size() && e < donee_list.size()) {
      const Donor& donor = donor_list[d];
      const Donee& donee = donee_list[e];
      if (donor.size > donee.size) {
        ++d;
      } else if (donor.size < donee.size) {
        ++e;
      } else {
        HMO_RETURN_IF_ERROR(
            alias_config.SetUpAlias(donee.index, donor.parameter_number, donor.index));
        buffer_donor_config.RemoveBufferDonor(donor.parameter_number, donor.index);
        ++d;
        ++e;
        changed = true;
      }
    }
  }
  return changed;
}

absl::StatusOr<bool> OptimizeInputOutputBufferAlias::Run(HloModule& module,
                                                         PassContext& /*context*/) {
  // The shapes HloInputOutputAliasConfig::Verify checks against.
  const ComputationLayout layout = module.entry_computation_layout();
  std::vector<Shape> input_shapes;
  std::vector<Shape> parameter_shapes;
  const HloComputation& entry = *module.entry_computation();
  for (int64_t i = 0; i < entry.num_parameters() && i < layout.parameter_count(); ++i) {
    input_shapes.push_back(layout.parameter_shape(i));
    parameter_shapes.push_back(entry.parameter_instruction(i)->shape());
  }
  const HloInputOutputAliasConfig arrived = module.input_output_alias_config();
  const HloBufferDonorConfig arrived_donors = module.buffer_donor_config();
  HMO_ASSIGN_OR_RETURN(
      bool changed,
      Build(input_shapes, layout.result_shape(), module.input_output_alias_config(),
            module.buffer_donor_config(), &parameter_shapes, &entry.root_instruction()->shape()));
  // Shapes alone may pair outputs with parameters crosswise, so that no order
  // reads each donated parameter before its output overwrites it (the
  // verifier's alias-cycle rule): drop added aliases on such a cycle, giving
  // a registered donor back its place.
  while (changed) {
    const std::vector<ShapeIndex> cycle = DonationCycle(entry, DonationOrderings(entry));
    auto added = std::find_if(cycle.begin(), cycle.end(), [&](const ShapeIndex& output) {
      return !arrived.OutputHasAlias(output);
    });
    if (added == cycle.end()) break;
    const HloInputOutputAliasConfig::Alias alias =
        module.input_output_alias_config().aliases().at(*added);
    module.input_output_alias_config().RemoveAlias(*added);
    if (arrived_donors.ParameterIsBufferDonor(alias.parameter_number, alias.parameter_index)) {
      HMO_RETURN_IF_ERROR(module.buffer_donor_config().AddBufferDonor(alias.parameter_number,
                                                                      alias.parameter_index));
    }
    changed = !(module.input_output_alias_config() == arrived) ||
              !(module.buffer_donor_config() == arrived_donors);
  }
  HMO_RETURN_IF_ERROR(
      module.input_output_alias_config().Verify(input_shapes, layout.result_shape()));
  return changed;
}

}  // namespace hmo
