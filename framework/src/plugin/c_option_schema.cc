#include "c_option_schema.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/pass/kebab_case.h"

namespace hmo {
namespace {

constexpr size_t kOptionDeclMinSize =
    offsetof(HmoPassOptionDecl, allowed_value_count) + sizeof(size_t);

// Adds `decl` to `schema`, or says what is wrong with it.
absl::Status DeclareOption(const HmoPassOptionDecl& decl, PassOptionSchema& schema) {
  const std::string key = decl.key;
  const std::string help = decl.help == nullptr ? "" : decl.help;
  static constexpr std::array<PassOptionType, 6> kTypes = {
      PassOptionType::kBool,   PassOptionType::kInt,    PassOptionType::kDouble,
      PassOptionType::kString, PassOptionType::kString, PassOptionType::kStringList};
  if (decl.type < 0 || decl.type >= static_cast<HmoPassOptionType>(kTypes.size())) {
    return absl::InvalidArgumentError(
        fmt::format("option '{}' has type {}, not an HmoPassOptionType", key, decl.type));
  }
  const PassOptionType type = kTypes[static_cast<size_t>(decl.type)];
  if (decl.type == kHmoPassOptionEnum) {
    if (decl.default_value == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("enum option '{}' has no default (an enum option needs one)", key));
    }
    if (decl.allowed_values == nullptr || decl.allowed_value_count == 0) {
      return absl::InvalidArgumentError(
          fmt::format("enum option '{}' declares no allowed values", key));
    }
    std::vector<std::string> allowed;
    for (size_t i = 0; i < decl.allowed_value_count; ++i) {
      if (decl.allowed_values[i] == nullptr) {
        return absl::InvalidArgumentError(
            fmt::format("enum option '{}' has a NULL allowed value at {}", key, i));
      }
      allowed.emplace_back(decl.allowed_values[i]);
    }
    if (std::find(allowed.begin(), allowed.end(), decl.default_value) == allowed.end()) {
      return absl::InvalidArgumentError(
          fmt::format("enum option '{}' has default '{}', which is not among its values", key,
                      decl.default_value));
    }
    schema.Enum(key, decl.default_value, std::move(allowed), help);
    return absl::OkStatus();
  }
  if (decl.default_value == nullptr) {
    schema.Required(key, type, help);
    return absl::OkStatus();
  }
  if (type == PassOptionType::kStringList) {
    std::vector<std::string> items;
    if (decl.default_value[0] != '\0') items = absl::StrSplit(decl.default_value, ',');
    schema.StringList(key, std::move(items), help);
    return absl::OkStatus();
  }
  absl::StatusOr<PassOptionValue> value = ParsePassOptionScalar(type, decl.default_value);
  if (!value.ok()) {
    return absl::InvalidArgumentError(fmt::format("option '{}' has default '{}': {}", key,
                                                  decl.default_value,
                                                  std::string(value.status().message())));
  }
  switch (type) {
    case PassOptionType::kBool:
      schema.Bool(key, std::get<bool>(*value), help);
      break;
    case PassOptionType::kInt:
      schema.Int(key, std::get<int64_t>(*value), help);
      break;
    case PassOptionType::kDouble:
      schema.Double(key, std::get<double>(*value), help);
      break;
    default:
      schema.String(key, std::get<std::string>(*value), help);
      break;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PassOptionSchema> OptionSchemaFromDeclarations(
    const HmoPassOptionDecl* const* declarations, size_t count) {
  if (count > 0 && declarations == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("declares {} options but its options array is NULL", count));
  }
  PassOptionSchema schema;
  absl::flat_hash_set<std::string> keys;
  for (size_t i = 0; i < count; ++i) {
    const HmoPassOptionDecl* decl = declarations[i];
    if (decl == nullptr || decl->struct_size < kOptionDeclMinSize || decl->key == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("option declaration {} is {}", i,
                      decl == nullptr        ? "NULL"
                      : decl->key == nullptr ? "without a key"
                                             : fmt::format("{} bytes, less than the {} of ABI 1.3",
                                                           decl->struct_size, kOptionDeclMinSize)));
    }
    if (!IsKebabCase(decl->key)) {
      return absl::InvalidArgumentError(
          fmt::format("option key '{}' is not kebab-case", decl->key));
    }
    if (!keys.insert(decl->key).second) {
      return absl::InvalidArgumentError(fmt::format("option '{}' is declared twice", decl->key));
    }
    HMO_RETURN_IF_ERROR(DeclareOption(*decl, schema));
  }
  return schema;
}

}  // namespace hmo
