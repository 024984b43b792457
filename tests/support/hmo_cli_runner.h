#ifndef HMO_TESTS_SUPPORT_HMO_CLI_RUNNER_H_
#define HMO_TESTS_SUPPORT_HMO_CLI_RUNNER_H_

// Runs the built `hmo` binary (HMO_BINARY_DIR/bin/hmo) from a test and
// captures its exit code, stdout and stderr. ctest runs tests as parallel
// processes, so the capture files are named by process id and a counter.

#include <string>

namespace hmo::test_support {

struct HmoCliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `hmo <arguments>` (a shell command line fragment; quote paths with
// spaces yourself) with `environment` prepended (e.g. "HMO_PLUGIN_PATH=x").
HmoCliRun RunHmoCli(const std::string& arguments, const std::string& environment = "");

// Runs `<launcher> hmo <arguments>`, e.g. launcher "mpirun -n 4": every
// process's output is captured together.
HmoCliRun RunHmoCliLaunchedBy(const std::string& launcher, const std::string& arguments);

}  // namespace hmo::test_support

#endif  // HMO_TESTS_SUPPORT_HMO_CLI_RUNNER_H_
