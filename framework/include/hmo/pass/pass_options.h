#ifndef HMO_PASS_PASS_OPTIONS_H_
#define HMO_PASS_PASS_OPTIONS_H_

// The option values one use of a pass runs with, already typed and validated
// against the pass's PassOptionSchema.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hmo {

// The types an option may have.
enum class PassOptionType { kBool, kInt, kDouble, kString, kStringList };

// Returns the type's name as users see it: "bool", "int", "double", "string",
// "string-list".
std::string_view PassOptionTypeName(PassOptionType type);

// A typed option value; the alternative matches the PassOptionType in order.
using PassOptionValue =
    std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;

// Returns the type a value holds.
PassOptionType TypeOfPassOptionValue(const PassOptionValue& value);

// Returns `value` in the textual pipeline's spelling: `true`, `42`, `0.5`,
// `text`, `[a,b]`. Doubles keep enough digits to read back the same number.
std::string FormatPassOptionValue(const PassOptionValue& value);

// Every option of one pass use, in the schema's declaration order.
class PassOptions {
 public:
  PassOptions() = default;

  // Sets `key` (replacing an earlier value).
  void Set(std::string key, PassOptionValue value);

  // Returns the value of `key`, or null when the pass has no such option.
  const PassOptionValue* Find(std::string_view key) const;

  // Typed getters. Asking for a key the schema does not declare, or with the
  // wrong type, is a programming error and aborts with a message.
  bool GetBool(std::string_view key) const;
  int64_t GetInt(std::string_view key) const;
  double GetDouble(std::string_view key) const;
  const std::string& GetString(std::string_view key) const;
  const std::vector<std::string>& GetStringList(std::string_view key) const;

  // All values, in the schema's declaration order.
  const std::vector<std::pair<std::string, PassOptionValue>>& values() const { return values_; }

  bool operator==(const PassOptions& other) const = default;

 private:
  template <typename T>
  const T& Get(std::string_view key, PassOptionType type) const;

  std::vector<std::pair<std::string, PassOptionValue>> values_;
};

}  // namespace hmo

#endif  // HMO_PASS_PASS_OPTIONS_H_
