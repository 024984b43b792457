#include "argument_parser.h"

#include <algorithm>
#include <cstdio>

#include "exit_codes.h"

#include "fmt/format.h"

namespace hmo::cli {
namespace {

std::vector<std::string> SplitNames(const std::string& names) {
  std::vector<std::string> result;
  size_t start = 0;
  while (start <= names.size()) {
    const size_t comma = names.find(',', start);
    result.push_back(names.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return result;
}

}  // namespace

ArgumentParser::ArgumentParser(std::string usage, std::string description)
    : usage_(std::move(usage)), description_(std::move(description)) {}

void ArgumentParser::AddFlag(std::string names, bool* value, std::string help) {
  options_.push_back({SplitNames(names), "", std::move(help), value, nullptr, nullptr});
}

void ArgumentParser::AddOption(std::string names, std::string metavar, std::string* value,
                               std::string help) {
  options_.push_back(
      {SplitNames(names), std::move(metavar), std::move(help), nullptr, value, nullptr});
}

void ArgumentParser::AddRepeatedOption(std::string names, std::string metavar,
                                       std::vector<std::string>* values, std::string help) {
  options_.push_back(
      {SplitNames(names), std::move(metavar), std::move(help), nullptr, nullptr, values});
}

void ArgumentParser::SetPositionals(std::string metavar, std::vector<std::string>* values,
                                    size_t min_count, std::string help) {
  positional_metavar_ = std::move(metavar);
  positionals_ = values;
  min_positionals_ = min_count;
  positional_help_ = std::move(help);
}

const ArgumentParser::Option* ArgumentParser::Find(std::string_view name) const {
  for (const Option& option : options_) {
    if (std::find(option.names.begin(), option.names.end(), name) != option.names.end()) {
      return &option;
    }
  }
  return nullptr;
}

absl::Status ArgumentParser::Parse(const std::vector<std::string>& args) {
  if (std::find_if(args.begin(), args.end(), [](const std::string& a) {
        return a == "-h" || a == "--help";
      }) != args.end()) {
    help_requested_ = true;
    return absl::OkStatus();
  }
  std::vector<std::string> positionals;
  bool options_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_ended || arg.size() < 2 || arg[0] != '-') {
      positionals.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (const size_t equals = arg.find('='); arg.starts_with("--") && equals != std::string::npos) {
      name = arg.substr(0, equals);
      inline_value = arg.substr(equals + 1);
    } else if (!arg.starts_with("--") && arg.size() > 2 && Find(arg) == nullptr) {
      // A short option with its value attached, as getopt reads it: -j1, -oOUT.
      const Option* short_option = Find(arg.substr(0, 2));
      if (short_option != nullptr && short_option->flag == nullptr) {
        name = arg.substr(0, 2);
        inline_value = arg.substr(2);
      }
    }
    const Option* option = Find(name);
    if (option == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("unknown option '{}' (see --help)", name));
    }
    if (option->flag != nullptr) {
      if (inline_value.has_value()) {
        return absl::InvalidArgumentError(fmt::format("option '{}' takes no value", name));
      }
      *option->flag = true;
      continue;
    }
    if (!inline_value.has_value()) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            fmt::format("option '{}' needs a value ({})", name, option->metavar));
      }
      inline_value = args[++i];
    }
    // An empty value names nothing; taking it as "not given" would ignore the
    // option silently.
    if (inline_value->empty()) {
      return absl::InvalidArgumentError(
          fmt::format("option '{}' needs a value ({}), got an empty one", name, option->metavar));
    }
    if (option->value != nullptr) {
      *option->value = *inline_value;
    } else {
      option->values->push_back(*inline_value);
    }
  }
  if (positionals_ == nullptr && !positionals.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("unexpected argument '{}' (see --help)", positionals.front()));
  }
  if (positionals.size() < min_positionals_) {
    return absl::InvalidArgumentError(
        fmt::format("missing {} (see --help)", positional_metavar_));
  }
  if (positionals_ != nullptr) *positionals_ = std::move(positionals);
  return absl::OkStatus();
}

std::string ArgumentParser::Help() const {
  std::string out = fmt::format("usage: {}\n\n{}\n", usage_, description_);
  std::vector<std::pair<std::string, std::string>> rows;
  if (positionals_ != nullptr) rows.emplace_back(positional_metavar_, positional_help_);
  for (const Option& option : options_) {
    std::string spelling = fmt::format("{}", fmt::join(option.names, ", "));
    if (!option.metavar.empty()) spelling += " " + option.metavar;
    rows.emplace_back(std::move(spelling), option.help);
  }
  rows.emplace_back("-h, --help", "show this help");
  size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  out += "\narguments:\n";
  for (const auto& [spelling, help] : rows) {
    fmt::format_to(std::back_inserter(out), "  {:<{}}  {}\n", spelling, width, help);
  }
  return out;
}

std::optional<int> ParseArgumentsOrExit(ArgumentParser& parser, std::string_view command,
                                        const std::vector<std::string>& args) {
  absl::Status status = parser.Parse(args);
  if (!status.ok()) {
    fmt::print(stderr, "hmo {}: error: {}\n", command, std::string(status.message()));
    return kExitUsage;
  }
  if (parser.help_requested()) {
    fmt::print("{}", parser.Help());
    return kExitOk;
  }
  return std::nullopt;
}

}  // namespace hmo::cli
