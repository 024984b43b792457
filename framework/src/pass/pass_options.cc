#include "hmo/pass/pass_options.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "fmt/format.h"

namespace hmo {

std::string_view PassOptionTypeName(PassOptionType type) {
  switch (type) {
    case PassOptionType::kBool:
      return "bool";
    case PassOptionType::kInt:
      return "int";
    case PassOptionType::kDouble:
      return "double";
    case PassOptionType::kString:
      return "string";
    case PassOptionType::kStringList:
      return "string-list";
  }
  return "unknown";
}

PassOptionType TypeOfPassOptionValue(const PassOptionValue& value) {
  return static_cast<PassOptionType>(value.index());
}

std::string FormatPassOptionValue(const PassOptionValue& value) {
  switch (TypeOfPassOptionValue(value)) {
    case PassOptionType::kBool:
      return std::get<bool>(value) ? "true" : "false";
    case PassOptionType::kInt:
      return std::to_string(std::get<int64_t>(value));
    case PassOptionType::kDouble: {
      char buffer[64];
      auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), std::get<double>(value));
      return std::string(buffer, end);
    }
    case PassOptionType::kString:
      return std::get<std::string>(value);
    case PassOptionType::kStringList:
      return fmt::format("[{}]", fmt::join(std::get<std::vector<std::string>>(value), ","));
  }
  return "";
}

void PassOptions::Set(std::string key, PassOptionValue value) {
  for (auto& [existing_key, existing_value] : values_) {
    if (existing_key == key) {
      existing_value = std::move(value);
      return;
    }
  }
  values_.emplace_back(std::move(key), std::move(value));
}

const PassOptionValue* PassOptions::Find(std::string_view key) const {
  for (const auto& [existing_key, value] : values_) {
    if (existing_key == key) return &value;
  }
  return nullptr;
}

template <typename T>
const T& PassOptions::Get(std::string_view key, PassOptionType type) const {
  const PassOptionValue* value = Find(key);
  if (value == nullptr || TypeOfPassOptionValue(*value) != type) {
    std::fprintf(stderr, "hmo: pass option '%.*s' read as %.*s but it is %s\n",
                 static_cast<int>(key.size()), key.data(),
                 static_cast<int>(PassOptionTypeName(type).size()), PassOptionTypeName(type).data(),
                 value == nullptr ? "not declared"
                                  : std::string(PassOptionTypeName(TypeOfPassOptionValue(*value)))
                                        .c_str());
    std::abort();
  }
  return std::get<T>(*value);
}

bool PassOptions::GetBool(std::string_view key) const {
  return Get<bool>(key, PassOptionType::kBool);
}
int64_t PassOptions::GetInt(std::string_view key) const {
  return Get<int64_t>(key, PassOptionType::kInt);
}
double PassOptions::GetDouble(std::string_view key) const {
  return Get<double>(key, PassOptionType::kDouble);
}
const std::string& PassOptions::GetString(std::string_view key) const {
  return Get<std::string>(key, PassOptionType::kString);
}
const std::vector<std::string>& PassOptions::GetStringList(std::string_view key) const {
  return Get<std::vector<std::string>>(key, PassOptionType::kStringList);
}

}  // namespace hmo
