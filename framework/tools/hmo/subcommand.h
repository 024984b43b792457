#ifndef HMO_TOOLS_HMO_SUBCOMMAND_H_
#define HMO_TOOLS_HMO_SUBCOMMAND_H_

// The table of hmo subcommands. Each subcommand lives in its own file and
// adds itself with a namespace-scope registration object:
//
//   const SubcommandRegistration kStats{{"stats", "print memory statistics", &RunStats}};
//
// so a new subcommand is one new file in framework/tools/hmo/.

#include <string>
#include <string_view>
#include <vector>

namespace hmo::cli {

struct Subcommand {
  std::string_view name;
  std::string_view summary;  // one line, for `hmo --help`
  // Runs the subcommand on its arguments (after the subcommand name);
  // returns the process exit status (exit_codes.h).
  int (*run)(const std::vector<std::string>& args);
};

class SubcommandRegistration {
 public:
  explicit SubcommandRegistration(Subcommand subcommand);
};

// Returns every registered subcommand, sorted by name.
std::vector<Subcommand> Subcommands();

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_SUBCOMMAND_H_
