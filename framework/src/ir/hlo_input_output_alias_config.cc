#include "hmo/ir/hlo_input_output_alias_config.h"
#include "str_cat.h"

#include "absl/strings/str_cat.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;

std::string HloInputOutputAliasConfig::Alias::ToString() const {
  return StrCat("(", parameter_number, ", ", ShapeIndexToString(parameter_index), ", ",
                      kind == kMustAlias ? "must-alias" : "may-alias", ")");
}

absl::Status HloInputOutputAliasConfig::SetUpAlias(const ShapeIndex& output_index,
                                                   int64_t param_number,
                                                   const ShapeIndex& param_index, AliasKind kind) {
  if (param_number < 0) {
    return absl::InvalidArgumentError(StrCat("negative parameter number ", param_number));
  }
  if (aliases_.contains(output_index)) {
    return absl::AlreadyExistsError(StrCat("output index ", ShapeIndexToString(output_index),
                                                 " already has an alias"));
  }
  if (auto out = GetAliasedOutput(param_number, param_index)) {
    return absl::AlreadyExistsError(StrCat("parameter ", param_number, " at ",
                                                 ShapeIndexToString(param_index),
                                                 " is already aliased with output ",
                                                 ShapeIndexToString(*out)));
  }
  aliases_[output_index] = Alias{param_number, param_index, kind};
  return absl::OkStatus();
}

void HloInputOutputAliasConfig::RemoveAlias(const ShapeIndex& output_index) {
  aliases_.erase(output_index);
}

bool HloInputOutputAliasConfig::ParameterHasAlias(int64_t param_number,
                                                  const ShapeIndex& param_index) const {
  return GetAliasedOutput(param_number, param_index).has_value();
}

bool HloInputOutputAliasConfig::ParameterMustAlias(int64_t param_number,
                                                   const ShapeIndex& param_index) const {
  for (const auto& [out, alias] : aliases_) {
    if (alias.parameter_number == param_number && alias.parameter_index == param_index) {
      return alias.must_alias();
    }
  }
  return false;
}

bool HloInputOutputAliasConfig::OutputHasAlias(const ShapeIndex& output_index) const {
  return aliases_.contains(output_index);
}

std::optional<ShapeIndex> HloInputOutputAliasConfig::GetAliasedOutput(
    int64_t param_number, const ShapeIndex& param_index) const {
  for (const auto& [out, alias] : aliases_) {
    if (alias.parameter_number == param_number && alias.parameter_index == param_index) return out;
  }
  return std::nullopt;
}

std::optional<HloInputOutputAliasConfig::Alias> HloInputOutputAliasConfig::GetAliasedParameter(
    const ShapeIndex& output_index) const {
  auto it = aliases_.find(output_index);
  if (it == aliases_.end()) return std::nullopt;
  return it->second;
}

void HloInputOutputAliasConfig::ForEachAlias(
    const std::function<void(const ShapeIndex&, const Alias&)>& fn) const {
  for (const auto& [out, alias] : aliases_) fn(out, alias);
}

absl::Status HloInputOutputAliasConfig::Verify(const std::vector<Shape>& parameter_shapes,
                                               const Shape& result_shape) const {
  for (const auto& [out, alias] : aliases_) {
    if (!ShapeUtil::IndexIsValid(result_shape, out)) {
      return absl::InvalidArgumentError(StrCat("input_output_alias output index ",
                                                     ShapeIndexToString(out),
                                                     " is not valid for the result shape ",
                                                     result_shape.ToString()));
    }
    if (alias.parameter_number >= static_cast<int64_t>(parameter_shapes.size())) {
      return absl::InvalidArgumentError(StrCat("input_output_alias parameter ",
                                                     alias.parameter_number, " does not exist"));
    }
    const Shape& param = parameter_shapes[alias.parameter_number];
    if (!ShapeUtil::IndexIsValid(param, alias.parameter_index)) {
      return absl::InvalidArgumentError(StrCat(
          "input_output_alias parameter index ", ShapeIndexToString(alias.parameter_index),
          " is not valid for parameter ", alias.parameter_number, " of shape ", param.ToString()));
    }
    const Shape& ps = ShapeUtil::GetSubshape(param, alias.parameter_index);
    const Shape& os = ShapeUtil::GetSubshape(result_shape, out);
    if (!ps.IsArray() || !os.IsArray() || ShapeUtil::ByteSizeOf(ps) != ShapeUtil::ByteSizeOf(os)) {
      return absl::InvalidArgumentError(StrCat(
          "input_output_alias output ", ShapeIndexToString(out), " (", os.ToString(),
          ") and parameter ", alias.parameter_number, " ", ShapeIndexToString(alias.parameter_index),
          " (", ps.ToString(), ") are not arrays of the same size"));
    }
  }
  return absl::OkStatus();
}

std::string HloInputOutputAliasConfig::ToString() const {
  if (aliases_.empty()) return "{}";
  std::string out = "{ ";
  bool first = true;
  for (const auto& [index, alias] : aliases_) {
    if (!first) out += ", ";
    first = false;
    StrAppend(&out, ShapeIndexToString(index), ": ", alias.ToString());
  }
  out += " }";
  return out;
}

absl::Status HloBufferDonorConfig::AddBufferDonor(int64_t param_number,
                                                  const ShapeIndex& param_index) {
  if (!donors_.insert(BufferDonor{param_number, param_index}).second) {
    return absl::AlreadyExistsError(StrCat("parameter ", param_number, " at ",
                                                 ShapeIndexToString(param_index),
                                                 " is already a buffer donor"));
  }
  return absl::OkStatus();
}

void HloBufferDonorConfig::RemoveBufferDonor(int64_t param_number, const ShapeIndex& param_index) {
  donors_.erase(BufferDonor{param_number, param_index});
}

bool HloBufferDonorConfig::ParameterIsBufferDonor(int64_t param_number,
                                                  const ShapeIndex& param_index) const {
  return donors_.contains(BufferDonor{param_number, param_index});
}

std::string HloBufferDonorConfig::ToString() const {
  if (donors_.empty()) return "{}";
  std::string out = "{ ";
  bool first = true;
  for (const BufferDonor& d : donors_) {
    if (!first) out += ", ";
    first = false;
    StrAppend(&out, "(", d.param_number, ", ", ShapeIndexToString(d.param_index), ")");
  }
  out += " }";
  return out;
}

}  // namespace hmo
