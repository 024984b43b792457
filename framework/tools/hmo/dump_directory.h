#ifndef HMO_TOOLS_HMO_DUMP_DIRECTORY_H_
#define HMO_TOOLS_HMO_DUMP_DIRECTORY_H_

// The programs of an --xla_dump_to directory. XLA names each program's
// module files module_<NNNN>.<program>.<stage>.txt, the stage being
// before_optimizations or <platform>_after_optimizations; beside them lie
// per-pass dumps, buffer assignments and other reports, which are skipped.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hmo::cli {

enum class DumpStage { kBeforeOptimizations, kAfterOptimizations };

// "before" / "after". Errors: InvalidArgument naming the choices.
absl::StatusOr<DumpStage> ParseDumpStage(std::string_view name);

// The module file name looked for at `stage`, as error messages show it:
// "module_<N>.<program>_after_optimizations.txt".
std::string DumpModuleFileName(DumpStage stage);

// One module file of a dump: its path and the program's name as JAX gave it
// (e.g. "jit_train_step").
struct DumpModule {
  std::filesystem::path path;
  std::string program;
};

// The module files of `directory` at `stage`, by module number (one per
// program and platform). Errors: NotFound when there is none, saying what
// was looked for; those of reading the directory.
absl::StatusOr<std::vector<DumpModule>> FindDumpModules(const std::filesystem::path& directory,
                                                        DumpStage stage);

// Whether `directory` holds module files at either stage: an --xla_dump_to
// directory rather than a folder of HLO files.
bool IsDumpDirectory(const std::filesystem::path& directory);

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_DUMP_DIRECTORY_H_
