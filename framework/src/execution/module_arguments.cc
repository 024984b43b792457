// MakeModuleArguments (hmo/execution/module_execution.h).

#include "fmt/format.h"
#include "hmo/execution/module_execution.h"
#include "hmo/execution/npy.h"
#include "hmo/execution/random_literals.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"

namespace hmo {

absl::StatusOr<std::vector<Literal>> MakeModuleArguments(const HloModule& module,
                                                         const std::vector<std::string>& files,
                                                         uint64_t seed) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("module '{}' has no entry computation", module.name()));
  }
  if (files.empty()) return MakeRandomArguments(module, seed);
  if (static_cast<int64_t>(files.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} input file{} ({}) given but module '{}' has {} entry parameter{}", files.size(),
        files.size() == 1 ? "" : "s", fmt::join(files, ", "), module.name(),
        entry->num_parameters(), entry->num_parameters() == 1 ? "" : "s"));
  }
  std::vector<Literal> arguments;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction* parameter = entry->parameter_instruction(i);
    absl::StatusOr<Literal> argument = ReadNpyFileAs(files[i], parameter->shape());
    if (!argument.ok()) {
      return absl::Status(argument.status().code(),
                          fmt::format("{} (for parameter {} '{}')",
                                      std::string(argument.status().message()), i,
                                      parameter->name()));
    }
    arguments.push_back(*std::move(argument));
  }
  return arguments;
}

}  // namespace hmo
