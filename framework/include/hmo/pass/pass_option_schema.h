#ifndef HMO_PASS_PASS_OPTION_SCHEMA_H_
#define HMO_PASS_PASS_OPTION_SCHEMA_H_

// A pass's typed options, declared once. `hmo passes`, the YAML pipeline
// validator, the textual pipeline form `name{key=value,list=[a,b]}` and the
// printed pipeline all derive from this one declaration.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

// Declares one option.
struct PassOptionSpec {
  std::string key;  // kebab-case
  PassOptionType type = PassOptionType::kString;
  // The value used when the option is not given; absent exactly when required.
  std::optional<PassOptionValue> default_value;
  bool required = false;
  std::string help;  // one line
  // kString only: the values the option accepts (an enum option); empty
  // means any string.
  std::vector<std::string> allowed_values;
};

// One `key = value` as the user wrote it, before typing: a scalar, or a list
// of scalars (`[a, b]` in either pipeline form).
struct PassOptionAssignment {
  std::string key;
  std::variant<std::string, std::vector<std::string>> value;
};

// Where Bind() found a problem, so that a pipeline parser can point at it.
struct PassOptionProblem {
  enum class Part {
    kPass,   // about the pass as a whole (a required option is missing)
    kKey,    // about assignments[assignment].key (unknown or repeated key)
    kValue,  // about assignments[assignment].value (wrong type, bad number)
  };
  Part part = Part::kPass;
  size_t assignment = 0;
};

// The option declarations of one pass, in declaration order.
class PassOptionSchema {
 public:
  // Each adder declares an optional option with its default, and returns
  // *this so declarations chain. Keys must be distinct kebab-case words;
  // breaking that is a programming error and aborts.
  PassOptionSchema& Bool(std::string key, bool default_value, std::string help);
  PassOptionSchema& Int(std::string key, int64_t default_value, std::string help);
  PassOptionSchema& Double(std::string key, double default_value, std::string help);
  PassOptionSchema& String(std::string key, std::string default_value, std::string help);
  PassOptionSchema& StringList(std::string key, std::vector<std::string> default_value,
                               std::string help);
  // Declares a string option that accepts only `allowed_values` (which must
  // hold `default_value`); Bind refuses any other value at its position.
  PassOptionSchema& Enum(std::string key, std::string default_value,
                         std::vector<std::string> allowed_values, std::string help);
  // Declares an option without a default that every use of the pass must give.
  PassOptionSchema& Required(std::string key, PassOptionType type, std::string help);

  const std::vector<PassOptionSpec>& specs() const { return specs_; }
  // Returns the declaration of `key`, or null.
  const PassOptionSpec* Find(std::string_view key) const;
  // Returns the declared keys, in declaration order.
  std::vector<std::string> Keys() const;

  // Types `assignments` against the schema and fills in defaults. Returns the
  // complete option values, or InvalidArgument for the first problem found: an
  // unknown key (with a "did you mean" when one is close), a key given twice,
  // a value of the wrong type or shape, a value an enum option does not
  // allow, or a required option left out. When
  // `problem` is not null it receives where that problem is.
  absl::StatusOr<PassOptions> Bind(absl::Span<const PassOptionAssignment> assignments,
                                   PassOptionProblem* problem = nullptr) const;

 private:
  PassOptionSchema& Add(PassOptionSpec spec);

  std::vector<PassOptionSpec> specs_;
};

// Parses the text of one scalar as `type` (not kStringList): `true`/`false`,
// a decimal integer, a decimal number, or any text. Returns InvalidArgument
// naming the expected type when the text does not fit.
absl::StatusOr<PassOptionValue> ParsePassOptionScalar(PassOptionType type,
                                                      std::string_view text);

}  // namespace hmo

#endif  // HMO_PASS_PASS_OPTION_SCHEMA_H_
