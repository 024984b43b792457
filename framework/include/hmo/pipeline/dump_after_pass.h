#ifndef HMO_PIPELINE_DUMP_AFTER_PASS_H_
#define HMO_PIPELINE_DUMP_AFTER_PASS_H_

// `--dump-to DIR --dump-after REGEX`: writes the module's HLO text after each
// pass whose name matches REGEX (the whole name), as
//   DIR/<module>.<NNNN>.after_<pass>.hlo
// where NNNN is the pass run's 1-based sequence number in the module run, so
// the files sort in the order the passes ran. Characters of the module name
// other than letters, digits, '-', '_' and '.' become '_'.

#include <filesystem>
#include <regex>
#include <string>

#include "hmo/pipeline/pass_instrumentation.h"

namespace hmo {

// Returns the dump file name for `module_name` after pass run `run`.
std::string DumpFileName(std::string_view module_name, const PassRunInfo& run);

class DumpAfterPassInstrumentation : public PassInstrumentation {
 public:
  // `after` must be a valid ECMAScript regex (ResolvePipeline checks pipeline
  // files; the CLI checks --dump-after).
  DumpAfterPassInstrumentation(std::filesystem::path directory, const std::string& after);

  // Creates the directory. Returns an error naming it when that fails.
  absl::Status BeforePipeline(const HloModule& module) override;
  absl::Status AfterPass(const PassRunInfo& run, const HloModule& module, bool changed) override;

 private:
  std::filesystem::path directory_;
  std::regex after_;
};

}  // namespace hmo

#endif  // HMO_PIPELINE_DUMP_AFTER_PASS_H_
