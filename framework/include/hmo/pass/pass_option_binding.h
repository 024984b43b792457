#ifndef HMO_PASS_PASS_OPTION_BINDING_H_
#define HMO_PASS_PASS_OPTION_BINDING_H_

// PassOptionBinding<Options>: a pass's options declared once, each bound to a
// member of the pass's options struct (as MLIR's Option<T> binds to a pass
// member). The schema that `hmo passes` and the pipeline readers use and the
// read-back into the struct come from the same declaration, so a key's type
// is the member's and the pass never looks a value up by name:
//
//   enum class Objective { kDeviceBytes, kHeapPeak };
//   struct Options { Objective objective; int64_t alignment = 0; };
//   static const PassOptionBinding<Options>& Binding() {
//     static const PassOptionBinding<Options> binding =
//         PassOptionBinding<Options>()
//             .Enum("objective", &Options::objective, Objective::kDeviceBytes,
//                   {{"device-bytes", Objective::kDeviceBytes},
//                    {"heap-peak", Objective::kHeapPeak}},
//                   "what candidates are compared on")
//             .Option("alignment", &Options::alignment, 64, "offset alignment");
//     return binding;
//   }
//   static PassOptionSchema OptionSchema() { return Binding().schema(); }
//   ... HMO_ASSIGN_OR_RETURN(Options options, Binding().Read(pass_options));

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

// Whether T is std::optional<E> of an enum E.
template <typename T>
struct IsOptionalEnum : std::false_type {};
template <typename E>
struct IsOptionalEnum<std::optional<E>> : std::is_enum<E> {};

}  // namespace hmo

namespace hmo {

template <typename Options>
class PassOptionBinding {
 public:
  // Each declares an optional option with its default, bound to `member`;
  // the option's type is the member's.
  PassOptionBinding& Option(std::string key, bool Options::*member, bool default_value,
                            std::string help) {
    schema_.Bool(key, default_value, std::move(help));
    return Bind(std::move(key), member);
  }
  PassOptionBinding& Option(std::string key, int64_t Options::*member, int64_t default_value,
                            std::string help) {
    schema_.Int(key, default_value, std::move(help));
    return Bind(std::move(key), member);
  }
  PassOptionBinding& Option(std::string key, double Options::*member, double default_value,
                            std::string help) {
    schema_.Double(key, default_value, std::move(help));
    return Bind(std::move(key), member);
  }
  PassOptionBinding& Option(std::string key, std::string Options::*member,
                            std::string default_value, std::string help) {
    schema_.String(key, std::move(default_value), std::move(help));
    return Bind(std::move(key), member);
  }
  PassOptionBinding& Option(std::string key, std::vector<std::string> Options::*member,
                            std::vector<std::string> default_value, std::string help) {
    schema_.StringList(key, std::move(default_value), std::move(help));
    return Bind(std::move(key), member);
  }
  // A string option that accepts only `allowed_values` (PassOptionSchema::Enum).
  PassOptionBinding& Enum(std::string key, std::string Options::*member, std::string default_value,
                          std::vector<std::string> allowed_values, std::string help) {
    schema_.Enum(key, std::move(default_value), std::move(allowed_values), std::move(help));
    return Bind(std::move(key), member);
  }
  // An option that accepts only the names in `names`, read into an enum
  // member as the value its name stands for, so that the pass switches on an
  // enum instead of comparing strings later. The member may be a
  // std::optional of an enum, with a name for "none" (std::nullopt). The
  // schema lists the names in this order; `default_value` must be one of
  // the values (a programmer error otherwise: the binding is built once, at
  // the pass's registration).
  template <typename E>
  requires std::is_enum_v<E> || IsOptionalEnum<E>::value PassOptionBinding& Enum(
      std::string key, E Options::*member, E default_value,
      std::vector<std::pair<std::string, E>> names, std::string help) {
    std::vector<std::string> allowed_values;
    std::string default_name;
    for (const auto& [name, value] : names) {
      allowed_values.push_back(name);
      if (value == default_value && default_name.empty()) default_name = name;
    }
    if (default_name.empty()) {
      std::fprintf(stderr, "hmo: pass option '%s': the default is not one of its values\n",
                   key.c_str());
      std::abort();
    }
    schema_.Enum(key, std::move(default_name), std::move(allowed_values), std::move(help));
    setters_.push_back({std::move(key), [member, names = std::move(names)](
                                            const PassOptionValue& value, Options& out) {
                          const std::string* name = std::get_if<std::string>(&value);
                          if (name == nullptr) return false;
                          for (const auto& [known, enum_value] : names) {
                            if (known == *name) {
                              out.*member = enum_value;
                              return true;
                            }
                          }
                          return false;
                        }});
    return *this;
  }

  // An option without a default that every use of the pass must give.
  template <typename T>
  PassOptionBinding& Required(std::string key, T Options::*member, std::string help) {
    schema_.Required(key, TypeOf<T>(), std::move(help));
    return Bind(std::move(key), member);
  }

  const PassOptionSchema& schema() const { return schema_; }

  // The values of `options` in their members. `options` must come from
  // schema().Bind (the pass registry's); values of another schema give
  // InternalError naming the first key that does not match.
  absl::StatusOr<Options> Read(const PassOptions& options) const {
    const auto& values = options.values();
    if (values.size() != setters_.size()) {
      return absl::InternalError("pass options hold " + std::to_string(values.size()) +
                                 " values; the binding declares " +
                                 std::to_string(setters_.size()));
    }
    Options out{};
    for (size_t i = 0; i < setters_.size(); ++i) {
      if (values[i].first != setters_[i].key || !setters_[i].set(values[i].second, out)) {
        return absl::InternalError("pass option '" + values[i].first +
                                   "' does not match the binding's '" + setters_[i].key + "'");
      }
    }
    return out;
  }

 private:
  struct Setter {
    std::string key;
    // False when the value is not of the member's type.
    std::function<bool(const PassOptionValue&, Options&)> set;
  };

  // The option type of a member type (only PassOptionValue's alternatives).
  template <typename T>
  static constexpr PassOptionType TypeOf() {
    if constexpr (std::is_same_v<T, bool>) return PassOptionType::kBool;
    if constexpr (std::is_same_v<T, int64_t>) return PassOptionType::kInt;
    if constexpr (std::is_same_v<T, double>) return PassOptionType::kDouble;
    if constexpr (std::is_same_v<T, std::string>) return PassOptionType::kString;
    static_assert(std::is_same_v<T, bool> || std::is_same_v<T, int64_t> ||
                      std::is_same_v<T, double> || std::is_same_v<T, std::string> ||
                      std::is_same_v<T, std::vector<std::string>>,
                  "an option member is bool, int64_t, double, std::string or "
                  "std::vector<std::string>");
    return PassOptionType::kStringList;
  }

  template <typename T>
  PassOptionBinding& Bind(std::string key, T Options::*member) {
    setters_.push_back({std::move(key), [member](const PassOptionValue& value, Options& out) {
                          const T* typed = std::get_if<T>(&value);
                          if (typed == nullptr) return false;
                          out.*member = *typed;
                          return true;
                        }});
    return *this;
  }

  PassOptionSchema schema_;
  std::vector<Setter> setters_;
};

}  // namespace hmo

#endif  // HMO_PASS_PASS_OPTION_BINDING_H_
