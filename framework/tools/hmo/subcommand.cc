#include "subcommand.h"

#include <algorithm>

namespace hmo::cli {
namespace {

std::vector<Subcommand>& Table() {
  static auto* table = new std::vector<Subcommand>;
  return *table;
}

}  // namespace

SubcommandRegistration::SubcommandRegistration(Subcommand subcommand) {
  Table().push_back(subcommand);
}

std::vector<Subcommand> Subcommands() {
  std::vector<Subcommand> sorted = Table();
  std::sort(sorted.begin(), sorted.end(),
            [](const Subcommand& a, const Subcommand& b) { return a.name < b.name; });
  return sorted;
}

}  // namespace hmo::cli
