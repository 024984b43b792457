#include "hmo/pass/pass_option_schema.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include <charconv>

#include "fmt/format.h"
#include "hmo/pass/kebab_case.h"
#include "hmo/pass/spelling_suggestion.h"

namespace hmo {

PassOptionSchema& PassOptionSchema::Add(PassOptionSpec spec) {
  if (!IsKebabCase(spec.key) || Find(spec.key) != nullptr) {
    std::fprintf(stderr, "hmo: pass option key '%s' is %s\n", spec.key.c_str(),
                 IsKebabCase(spec.key) ? "declared twice" : "not kebab-case");
    std::abort();
  }
  specs_.push_back(std::move(spec));
  return *this;
}

PassOptionSchema& PassOptionSchema::Bool(std::string key, bool default_value, std::string help) {
  return Add({std::move(key), PassOptionType::kBool, default_value, false, std::move(help), {}});
}
PassOptionSchema& PassOptionSchema::Int(std::string key, int64_t default_value, std::string help) {
  return Add({std::move(key), PassOptionType::kInt, default_value, false, std::move(help), {}});
}
PassOptionSchema& PassOptionSchema::Double(std::string key, double default_value,
                                           std::string help) {
  return Add({std::move(key), PassOptionType::kDouble, default_value, false, std::move(help), {}});
}
PassOptionSchema& PassOptionSchema::String(std::string key, std::string default_value,
                                           std::string help) {
  return Add({std::move(key),
              PassOptionType::kString,
              std::move(default_value),
              false,
              std::move(help),
              {}});
}
PassOptionSchema& PassOptionSchema::StringList(std::string key,
                                               std::vector<std::string> default_value,
                                               std::string help) {
  return Add({std::move(key),
              PassOptionType::kStringList,
              std::move(default_value),
              false,
              std::move(help),
              {}});
}
PassOptionSchema& PassOptionSchema::Enum(std::string key, std::string default_value,
                                         std::vector<std::string> allowed_values,
                                         std::string help) {
  if (std::find(allowed_values.begin(), allowed_values.end(), default_value) ==
      allowed_values.end()) {
    std::fprintf(stderr, "hmo: enum pass option '%s' does not allow its default '%s'\n",
                 key.c_str(), default_value.c_str());
    std::abort();
  }
  return Add({std::move(key), PassOptionType::kString, std::move(default_value), false,
              std::move(help), std::move(allowed_values)});
}
PassOptionSchema& PassOptionSchema::Required(std::string key, PassOptionType type,
                                             std::string help) {
  return Add({std::move(key), type, std::nullopt, true, std::move(help), {}});
}

const PassOptionSpec* PassOptionSchema::Find(std::string_view key) const {
  for (const PassOptionSpec& spec : specs_) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

std::vector<std::string> PassOptionSchema::Keys() const {
  std::vector<std::string> keys;
  for (const PassOptionSpec& spec : specs_) keys.push_back(spec.key);
  return keys;
}

absl::StatusOr<PassOptionValue> ParsePassOptionScalar(PassOptionType type,
                                                      std::string_view text) {
  switch (type) {
    case PassOptionType::kBool:
      if (text == "true") return PassOptionValue(true);
      if (text == "false") return PassOptionValue(false);
      return absl::InvalidArgumentError(
          fmt::format("expected a bool (true or false), got '{}'", text));
    case PassOptionType::kInt: {
      int64_t value = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (!text.empty() && error == std::errc() && end == text.data() + text.size()) {
        return PassOptionValue(value);
      }
      return absl::InvalidArgumentError(fmt::format("expected an int, got '{}'", text));
    }
    case PassOptionType::kDouble: {
      double value = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (!text.empty() && error == std::errc() && end == text.data() + text.size()) {
        return PassOptionValue(value);
      }
      return absl::InvalidArgumentError(fmt::format("expected a double, got '{}'", text));
    }
    case PassOptionType::kString:
      return PassOptionValue(std::string(text));
    case PassOptionType::kStringList:
      break;
  }
  return absl::InvalidArgumentError("expected a list like [a, b]");
}

absl::StatusOr<PassOptions> PassOptionSchema::Bind(
    absl::Span<const PassOptionAssignment> assignments, PassOptionProblem* problem) const {
  auto fail = [&](PassOptionProblem::Part part, size_t index, const std::string& message) {
    if (problem != nullptr) *problem = {part, index};
    return absl::InvalidArgumentError(message);
  };
  std::vector<std::optional<PassOptionValue>> values(specs_.size());
  for (size_t index = 0; index < assignments.size(); ++index) {
    const PassOptionAssignment& assignment = assignments[index];
    const PassOptionSpec* spec = Find(assignment.key);
    if (spec == nullptr) {
      std::string known = specs_.empty() ? std::string("it takes no options")
                                         : fmt::format("options: {}", fmt::join(Keys(), ", "));
      return fail(PassOptionProblem::Part::kKey, index,
                  fmt::format("unknown option '{}'{}; {}", assignment.key,
                              DidYouMean(assignment.key, Keys()), known));
    }
    std::optional<PassOptionValue>& slot = values[spec - specs_.data()];
    if (slot.has_value()) {
      return fail(PassOptionProblem::Part::kKey, index,
                  fmt::format("option '{}' is given twice", assignment.key));
    }
    const auto* list = std::get_if<std::vector<std::string>>(&assignment.value);
    if (spec->type == PassOptionType::kStringList) {
      if (list == nullptr) {
        return fail(PassOptionProblem::Part::kValue, index,
                    fmt::format("option '{}' expects a string-list like [a, b], got '{}'",
                                spec->key, std::get<std::string>(assignment.value)));
      }
      slot = *list;
      continue;
    }
    if (list != nullptr) {
      return fail(PassOptionProblem::Part::kValue, index,
                  fmt::format("option '{}' expects a {}, got a list", spec->key,
                              PassOptionTypeName(spec->type)));
    }
    absl::StatusOr<PassOptionValue> value =
        ParsePassOptionScalar(spec->type, std::get<std::string>(assignment.value));
    if (!value.ok()) {
      return fail(PassOptionProblem::Part::kValue, index,
                  fmt::format("option '{}': {}", spec->key,
                              std::string(value.status().message())));
    }
    if (!spec->allowed_values.empty()) {
      const std::string& text = std::get<std::string>(*value);
      if (std::find(spec->allowed_values.begin(), spec->allowed_values.end(), text) ==
          spec->allowed_values.end()) {
        return fail(PassOptionProblem::Part::kValue, index,
                    fmt::format("option '{}' must be one of {}, not '{}'{}", spec->key,
                                fmt::join(spec->allowed_values, ", "), text,
                                DidYouMean(text, spec->allowed_values)));
      }
    }
    slot = *std::move(value);
  }
  PassOptions options;
  for (size_t i = 0; i < specs_.size(); ++i) {
    const PassOptionSpec& spec = specs_[i];
    if (!values[i].has_value()) {
      if (spec.required) {
        return fail(PassOptionProblem::Part::kPass, 0,
                    fmt::format("missing required option '{}' ({}): {}", spec.key,
                                PassOptionTypeName(spec.type), spec.help));
      }
      values[i] = spec.default_value;
    }
    options.Set(spec.key, *std::move(values[i]));
  }
  return options;
}

}  // namespace hmo
