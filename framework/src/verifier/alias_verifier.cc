#include "hmo/verifier/alias_verifier.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hmo/ir/donation_orderings.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "str_util.h"

namespace hmo {

using verifier_internal::StrAppend;
using verifier_internal::StrCat;
namespace {

// Parameter shape by number, or null when the entry has no such parameter.
const Shape* ParameterShape(const HloComputation& entry, int64_t number) {
  if (number < 0 || number >= entry.num_parameters()) return nullptr;
  const HloInstruction* p = entry.parameter_instruction(number);
  return p ? &p->shape() : nullptr;
}

}  // namespace

void CheckModuleAliasing(const HloModule& module, VerifierErrorSink& sink) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr || entry->root_instruction() == nullptr) return;
  const Shape& result = entry->root_instruction()->shape();
  const HloInputOutputAliasConfig& config = module.input_output_alias_config();

  std::map<std::pair<int64_t, ShapeIndex>, ShapeIndex> aliased_params;
  for (const auto& [output_index, alias] : config.aliases()) {
    if (sink.full()) return;
    std::string entry_text =
        StrCat("input_output_alias entry ", ShapeIndexToString(output_index), ": ",
               alias.ToString());
    if (!ShapeUtil::IndexIsValid(result, output_index)) {
      sink.AddModuleError(HloModule::HeaderAttribute::kInputOutputAlias, "alias-output-index",
                          StrCat(entry_text, ": output index ", ShapeIndexToString(output_index),
                                 " is not in the entry result shape ", result.ToString(false)));
      continue;
    }
    const Shape* param = ParameterShape(*entry, alias.parameter_number);
    if (param == nullptr) {
      sink.AddModuleError(
          HloModule::HeaderAttribute::kInputOutputAlias, "alias-parameter",
          StrCat(entry_text, ": entry computation ", entry->name(), " has no parameter ",
                 alias.parameter_number, " (it has ", entry->num_parameters(), ")"));
      continue;
    }
    if (!ShapeUtil::IndexIsValid(*param, alias.parameter_index)) {
      sink.AddModuleError(HloModule::HeaderAttribute::kInputOutputAlias, "alias-parameter",
                          StrCat(entry_text, ": parameter index ",
                                 ShapeIndexToString(alias.parameter_index), " is not in parameter ",
                                 alias.parameter_number, " of shape ", param->ToString(false)));
      continue;
    }
    auto [it, inserted] =
        aliased_params.emplace(std::make_pair(alias.parameter_number, alias.parameter_index),
                               output_index);
    if (!inserted) {
      sink.AddModuleError(
          HloModule::HeaderAttribute::kInputOutputAlias, "alias-duplicate-parameter",
          StrCat(entry_text, ": parameter ", alias.parameter_number, " ",
                 ShapeIndexToString(alias.parameter_index), " is already aliased with output ",
                 ShapeIndexToString(it->second)));
      continue;
    }
    const Shape& out = ShapeUtil::GetSubshape(result, output_index);
    const Shape& in = ShapeUtil::GetSubshape(*param, alias.parameter_index);
    if (!out.IsArray() || !in.IsArray()) {
      sink.AddModuleError(HloModule::HeaderAttribute::kInputOutputAlias, "alias-shape",
                          StrCat(entry_text, ": aliased shapes must be arrays, got output ",
                                 out.ToString(false), " and parameter ", in.ToString(false)));
      continue;
    }
    int64_t out_bytes = ShapeUtil::ByteSizeOf(out);
    int64_t in_bytes = ShapeUtil::ByteSizeOf(in);
    if (out_bytes != in_bytes) {
      sink.AddModuleError(HloModule::HeaderAttribute::kInputOutputAlias, "alias-size",
                          StrCat(entry_text, ": output ", out.ToString(true), " (", out_bytes,
                                 " bytes) and parameter ", in.ToString(true), " (", in_bytes,
                                 " bytes) differ in size"));
      continue;
    }
    if (out.memory_space() != in.memory_space()) {
      sink.AddModuleError(HloModule::HeaderAttribute::kInputOutputAlias, "alias-memory-space",
                          StrCat(entry_text, ": output ", out.ToString(true),
                                 " is in memory space ", out.memory_space(), " but parameter ",
                                 in.ToString(true), " is in memory space ", in.memory_space()));
    }
  }

  // Orders between donations, once every alias is well formed.
  if (sink.empty() && !config.aliases().empty()) {
    const std::vector<ShapeIndex> cycle = DonationCycle(*entry, DonationOrderings(*entry));
    if (!cycle.empty()) {
      std::string listed;
      for (const ShapeIndex& output_index : cycle) {
        StrAppend(&listed, listed.empty() ? "" : " and ", ShapeIndexToString(output_index), ": ",
                  config.aliases().at(output_index).ToString());
      }
      sink.AddModuleError(
          HloModule::HeaderAttribute::kInputOutputAlias, "alias-cycle",
          StrCat("input_output_alias ", listed,
                 ": each donated parameter must be read before the output aliased with it is "
                 "written, and these orders form a cycle with the data dependencies"));
    }
  }

  for (const HloBufferDonorConfig::BufferDonor& donor :
       module.buffer_donor_config().buffer_donors()) {
    if (sink.full()) return;
    std::string donor_text = StrCat("buffer_donor (", donor.param_number, ", ",
                                    ShapeIndexToString(donor.param_index), ")");
    const Shape* param = ParameterShape(*entry, donor.param_number);
    if (param == nullptr) {
      sink.AddModuleError(HloModule::HeaderAttribute::kBufferDonor, "buffer-donor",
                          StrCat(donor_text, ": entry computation ", entry->name(),
                                 " has no parameter ", donor.param_number));
      continue;
    }
    if (!ShapeUtil::IndexIsValid(*param, donor.param_index)) {
      sink.AddModuleError(HloModule::HeaderAttribute::kBufferDonor, "buffer-donor",
                          StrCat(donor_text, ": index is not in parameter ", donor.param_number,
                                 " of shape ", param->ToString(false)));
      continue;
    }
    if (config.ParameterHasAlias(donor.param_number, donor.param_index)) {
      sink.AddModuleError(
          HloModule::HeaderAttribute::kBufferDonor, "buffer-donor-aliased",
          StrCat(donor_text, ": the parameter buffer is also in ", "input_output_alias"));
    }
  }
}

absl::Status VerifyModuleAliasing(const HloModule& module) {
  VerifierErrorSink sink(module, /*limit=*/1);
  CheckModuleAliasing(module, sink);
  if (sink.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(sink.errors().front().ToString());
}

}  // namespace hmo
