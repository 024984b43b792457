#ifndef HMO_TOOLS_HMO_ARGUMENT_PARSER_H_
#define HMO_TOOLS_HMO_ARGUMENT_PARSER_H_

// Command-line arguments of one hmo subcommand, declared once: parsing and the
// --help text both come from the declarations.
//
// Accepted spellings: `--name value`, `--name=value`, `-n value`, and for
// flags `--name` / `-n`. `--` ends the options. `-h` / `--help` are built in.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace hmo::cli {

class ArgumentParser {
 public:
  // `usage` is the synopsis line after "usage: ", `description` a paragraph.
  ArgumentParser(std::string usage, std::string description);

  // `names` is a comma-separated list of spellings, e.g. "-o,--output".
  void AddFlag(std::string names, bool* value, std::string help);
  void AddOption(std::string names, std::string metavar, std::string* value, std::string help);
  void AddRepeatedOption(std::string names, std::string metavar, std::vector<std::string>* values,
                         std::string help);
  // Collects positional arguments; at least `min_count` are required.
  void SetPositionals(std::string metavar, std::vector<std::string>* values, size_t min_count,
                      std::string help);

  // Parses `args` (without the program and subcommand names). Returns
  // InvalidArgument for an unknown option, a missing value or too few
  // positionals; none of that is checked once --help is seen.
  absl::Status Parse(const std::vector<std::string>& args);

  bool help_requested() const { return help_requested_; }

  // The --help text.
  std::string Help() const;

 private:
  struct Option {
    std::vector<std::string> names;
    std::string metavar;  // empty for flags
    std::string help;
    bool* flag = nullptr;
    std::string* value = nullptr;
    std::vector<std::string>* values = nullptr;
  };
  const Option* Find(std::string_view name) const;

  std::string usage_;
  std::string description_;
  std::vector<Option> options_;
  std::string positional_metavar_;
  std::string positional_help_;
  std::vector<std::string>* positionals_ = nullptr;
  size_t min_positionals_ = 0;
  bool help_requested_ = false;
};

// Parses `args` for the subcommand `command`. Returns nullopt when the
// command should go on; otherwise the exit code after printing the help to
// stdout (0) or the error to stderr (2).
std::optional<int> ParseArgumentsOrExit(ArgumentParser& parser, std::string_view command,
                                        const std::vector<std::string>& args);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_ARGUMENT_PARSER_H_
